package sites

import (
	"io/fs"
	"path"
	"regexp"
	"strings"

	"github.com/siteops/siteops/internal/kustomize"
	"github.com/siteops/siteops/internal/safefs"
)

// siteKindLine finds a top-level kind of a site definition in a YAML file
// without decoding it.
var siteKindLine = regexp.MustCompile(`(?m)^kind:\s*["']?(SiteConfig|ClusterInstance)["']?\s*(#.*)?$`)

// unlistedSites warns of the YAML files beside the kustomization file in
// dir that define a SiteConfig or ClusterInstance the kustomization does
// not list: kustomize reads only what it lists, so such a site is never
// loaded, which a typo in generators: or a forgotten entry makes easy to
// miss. listed holds the files the build read sites from.
func (l *loader) unlistedSites(dir, kustomizationFile string, listed map[string]bool) {
	entries, err := fs.ReadDir(l.fsys, dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		p := path.Join(dir, name)
		if e.IsDir() || strings.HasPrefix(name, ".") || !(strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")) ||
			listed[p] || p == kustomizationFile || kustomize.IsKustomizationFile(p) {
			continue
		}
		data, err := safefs.ReadFile(l.fsys, p, l.o.maxFileSize)
		if err != nil {
			continue
		}
		m := siteKindLine.FindSubmatch(data)
		if m == nil {
			continue
		}
		entry := "generators:"
		if string(m[1]) == "ClusterInstance" {
			entry = "resources:"
		}
		l.problems = append(l.problems, Problem{Pos: Position{File: p}, Severity: SeverityWarning,
			Message: "defines a " + string(m[1]) + " that " + kustomizationFile + " does not list, so it is not loaded",
			Hint:    "list it under " + entry + " in " + kustomizationFile + ", or move it out of this folder"})
	}
}
