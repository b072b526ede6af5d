package reconciler

import (
	"bytes"
	"io/fs"
	"path"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/siteops/siteops/internal/kustomize"
	"github.com/siteops/siteops/internal/safefs"
	"github.com/siteops/siteops/sites"
)

// A load unit is what one sites.Load call reads on its own and gives the
// same sites as the whole-tree load would: a plain YAML file outside any
// kustomization, or a kustomization directory that no kustomization above
// it contains (sites.Load builds such a directory as a whole and does not
// walk into it). Units are found by walking the tree by the rules of
// sites.Load: dot-folders and status/ folders are skipped, and so are
// dot-files and files that are not .yaml or .yml.

// units are the load units of a tree.
type units struct {
	// files are the plain YAML files, kustomizations the directories.
	files, kustomizations []string
}

// findUnits walks fsys from its root. A directory that cannot be listed
// is returned as a file unit: the loader reports why it cannot be read.
func findUnits(fsys fs.FS) units {
	var u units
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			u.files = append(u.files, p)
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != "." && skippedDir(d.Name()) {
				return fs.SkipDir
			}
			if _, ok := kustomize.IsKustomization(fsys, p); ok {
				u.kustomizations = append(u.kustomizations, p)
				return fs.SkipDir
			}
			return nil
		}
		if siteFileName(d.Name()) {
			u.files = append(u.files, p)
		}
		return nil
	})
	return u
}

// skippedDir reports whether the loader skips a directory of this name.
func skippedDir(name string) bool { return strings.HasPrefix(name, ".") || name == "status" }

// siteFileName reports whether the loader reads a file of this name when
// it walks a directory.
func siteFileName(name string) bool {
	return !strings.HasPrefix(name, ".") && (strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml"))
}

// walked reports whether the loader would read p (a file) when walking
// the tree outside kustomizations.
func walked(p string) bool { return siteFileName(path.Base(p)) && walkedDir(path.Dir(p)) }

// walkedDir reports whether the loader would walk into dir: no skipped
// directory on its way.
func walkedDir(dir string) bool {
	for ; dir != "." && dir != "/"; dir = path.Dir(dir) {
		if skippedDir(path.Base(dir)) {
			return false
		}
	}
	return true
}

// isKustomizationFile reports whether p is named like a kustomization.
func isKustomizationFile(p string) bool {
	switch path.Base(p) {
	case "kustomization.yaml", "kustomization.yml", "Kustomization":
		return true
	}
	return false
}

// generatorCache keeps what each kustomization file lists under
// generators, with the content it was read from. A generator layout's
// kustomization lists every site of the fleet, and a pass that reloads
// one of them reads the file again: parsing it again only when it
// changed keeps a one-site commit from parsing a list of the whole fleet.
type generatorCache struct {
	mu     sync.Mutex
	byFile map[string]cachedGenerators
}

type cachedGenerators struct {
	data   []byte
	listed map[string]bool
}

// generators returns the kustomization file of dir and the files its
// generators: list names, as root-relative paths. The ZTP layout lists
// SiteConfig files there; the loader reads each one itself, relative
// paths inside it resolving against dir, so one of them can be reloaded
// alone (reload.go). A directory without a kustomization, or with one
// that does not parse, has none.
func (c *generatorCache) generators(fsys fs.FS, dir string) (file string, listed map[string]bool) {
	file, ok := kustomize.IsKustomization(fsys, dir)
	if !ok {
		return "", nil
	}
	data, err := safefs.ReadFile(fsys, file, sites.DefaultMaxFileSize)
	if err != nil {
		return file, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if g, ok := c.byFile[file]; ok && bytes.Equal(g.data, data) {
		return file, g.listed
	}
	var k struct {
		Generators []string `yaml:"generators"`
	}
	if yaml.Unmarshal(data, &k) != nil {
		return file, nil
	}
	listed = make(map[string]bool, len(k.Generators))
	for _, g := range k.Generators {
		if p, err := sites.RootPath(path.Join(dir, g)); err == nil {
			listed[p] = true
		}
	}
	if c.byFile == nil {
		c.byFile = map[string]cachedGenerators{}
	}
	c.byFile[file] = cachedGenerators{data: data, listed: listed}
	return file, listed
}

// within reports whether p is dir or lies below it.
func within(p, dir string) bool {
	return dir == "." || p == dir || strings.HasPrefix(p, dir+"/")
}
