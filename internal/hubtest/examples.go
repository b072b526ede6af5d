package hubtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

var examples struct {
	once sync.Once
	m    map[string]*render.Bundle
	err  error
}

// ExampleBundle renders a site of the repository's examples/fleet (with
// the example extra manifests) and renames it: every string equal to the
// site's name (its namespace, cluster name and the references to them)
// becomes name, so that tests sharing a hub do not meet. repoRoot is the
// module root relative to the test's package.
func ExampleBundle(repoRoot, site, name string) (*render.Bundle, error) {
	examples.once.Do(func() {
		fleet, err := sites.Load(context.Background(), os.DirFS(repoRoot), []string{"examples/fleet"})
		if err != nil || fleet.Problems.HasErrors() {
			examples.err = fmt.Errorf("load examples/fleet: %v %v", err, fleet.Problems)
			return
		}
		md, err := sites.ReadManifestDir(os.DirFS(filepath.Join(repoRoot, "examples/extra-manifests")), ".")
		if err != nil {
			examples.err = err
			return
		}
		r := render.New(render.WithDefaultManifests(md))
		examples.m = map[string]*render.Bundle{}
		for _, s := range fleet.Sites {
			b, ps := r.Render(s)
			if ps.HasErrors() || b == nil {
				examples.err = fmt.Errorf("render %s: %v", s.Name, ps)
				return
			}
			examples.m[b.Site] = b
		}
	})
	if examples.err != nil {
		return nil, examples.err
	}
	src := examples.m[site]
	if src == nil {
		return nil, fmt.Errorf("no example site %s", site)
	}
	out := &render.Bundle{Site: name}
	for _, o := range src.Objects {
		c := *o
		c.Content = rename(o.Content, site, name).(map[string]any)
		if c.Namespace == site {
			c.Namespace = name
		}
		if c.Name == site {
			c.Name = name
		}
		out.Objects = append(out.Objects, &c)
	}
	return out, nil
}

func rename(v any, from, to string) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = rename(x, from, to)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = rename(x, from, to)
		}
		return out
	case string:
		if v == from {
			return to
		}
	}
	return v
}
