package krm

import (
	"bytes"
	"errors"
	"io/fs"
	"path"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/siteops/siteops/internal/kustomize"
	"github.com/siteops/siteops/internal/safefs"
)

// Origin is the file an item was written in, found in the working
// directory's kustomization: kustomize hands a generator its own config
// without saying which file it came from.
type Origin struct {
	File string
	// Line is where the object starts in File.
	Line int
	// Exact says the item is the object of File unchanged (but for the
	// annotations kustomize adds), so File's positions are the item's.
	Exact bool
}

// FindOrigin looks for it in the files the kustomization at the root of
// fsys lists under generators: and resources:, and in its own path
// annotation, by apiVersion, kind, namespace and name. Files over max
// bytes are skipped.
func FindOrigin(fsys fs.FS, it *Item, max int64) (Origin, bool) {
	var files []string
	if it.Path != "" {
		files = append(files, path.Clean(it.Path))
	}
	if k, ok := kustomize.IsKustomization(fsys, "."); ok {
		files = append(files, listedFiles(fsys, k, max)...)
	}
	want, err := comparable(it.node)
	if err != nil {
		return Origin{}, false
	}
	for _, f := range files {
		data, err := safefs.ReadFile(fsys, f, max)
		if err != nil {
			continue
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for {
			var doc yaml.Node
			if err := dec.Decode(&doc); err != nil {
				break // io.EOF, or text that is not YAML: not this file
			}
			if len(doc.Content) == 0 {
				continue
			}
			n := doc.Content[0]
			cand, err := newItem(n, "")
			if err != nil || !cand.SameObject(it) {
				continue
			}
			got, err := comparable(n)
			return Origin{File: f, Line: n.Line, Exact: err == nil && reflect.DeepEqual(got, want)}, true
		}
	}
	return Origin{}, false
}

// listedFiles returns the entries of a kustomization's generators: and
// resources: that are files inside fsys.
func listedFiles(fsys fs.FS, kustomization string, max int64) []string {
	data, err := safefs.ReadFile(fsys, kustomization, max)
	if err != nil {
		return nil
	}
	var k struct {
		Generators []string `yaml:"generators"`
		Resources  []string `yaml:"resources"`
	}
	if yaml.Unmarshal(data, &k) != nil {
		return nil
	}
	var out []string
	for _, e := range append(k.Generators, k.Resources...) {
		p := path.Clean(e)
		if path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") || strings.Contains(e, "://") {
			continue
		}
		if st, err := fs.Stat(fsys, p); err == nil && !st.IsDir() {
			out = append(out, p)
		}
	}
	return out
}

// orchestration reports annotations kustomize adds to the objects it
// hands a function (kyaml kioutil and fnplugin).
func orchestration(key string) bool {
	return strings.HasPrefix(key, "internal.config.kubernetes.io/") || key == "config.kubernetes.io/path" ||
		key == "config.kubernetes.io/index" || key == "config.kubernetes.io/id" || key == "config.kubernetes.io/local-config" ||
		key == "config.k8s.io/id" || key == "kustomize.config.k8s.io/id"
}

// comparable decodes an object without kustomize's annotations.
func comparable(n *yaml.Node) (map[string]any, error) {
	var m map[string]any
	if err := n.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("empty")
	}
	meta, _ := m["metadata"].(map[string]any)
	if ann, ok := meta["annotations"].(map[string]any); ok {
		for k := range ann {
			if orchestration(k) {
				delete(ann, k)
			}
		}
		if len(ann) == 0 {
			delete(meta, "annotations")
		}
	}
	return m, nil
}
