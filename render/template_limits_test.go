package render_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/siteops/siteops/internal/procstat"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// TestTemplateLoopsAreBounded builds the attacks of an extra-manifest
// template on the loop: ranges over integers the site writes (a
// rootDeviceHints value, a diskPartition size), nested ranges over the
// site's nodes, and template calls that branch. Each stops with a clear
// problem on the hostile site only; the other site renders; no goroutine
// is left behind; heap and CPU time, read from the process's own counters,
// stay within generous bounds.
func TestTemplateLoopsAreBounded(t *testing.T) {
	const (
		maxHeap = 1 << 30
		maxCPU  = 60 * time.Second
	)
	nodes := func(n int, extra string) string {
		var b strings.Builder
		b.WriteString("    nodes:\n")
		for i := range n {
			fmt.Fprintf(&b, "    - hostName: n%d\n%s", i, extra)
		}
		return b.String()
	}
	huge := "      rootDeviceHints: {minSizeGigabytes: 1000000000000}\n" +
		"      diskPartition: [{device: /dev/sda, partitions: [{mount_point: /var, start: 25000, size: 1000000000000}]}]\n"
	small := "      rootDeviceHints: {minSizeGigabytes: 3}\n"
	tests := []struct{ name, template, hostile, want string }{
		{"range over a root device hint", `{{ range (index .Data.Nodes 0).RootDeviceHints.minSizeGigabytes }}{{ end }}kind: X` + "\n",
			nodes(1, huge), "more than 1000000 loop iterations"},
		{"range over a partition size", `{{ range (index .Data.Nodes 0).DiskPartition }}{{ range .Partitions }}{{ range .Size }}{{ end }}{{ end }}{{ end }}kind: X` + "\n",
			nodes(1, huge), "more than 1000000 loop iterations"},
		{"nested ranges over the nodes", `{{ range .Data.Nodes }}{{ range $.Data.Nodes }}{{ range $.Data.Nodes }}{{ range $.Data.Nodes }}{{ end }}{{ end }}{{ end }}{{ end }}kind: X` + "\n",
			nodes(200, small), "more than 1000000 loop iterations"},
		{"branching template calls", `{{ define "a" }}{{ range .Data.Nodes }}{{ template "a" $ }}{{ end }}{{ end }}{{ template "a" . }}kind: X` + "\n",
			nodes(2, small), "template calls nest more than 100 deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{
				"hostile.yaml": {Data: []byte(strings.Replace(baseSite, "c1", "hostile", 1) + tt.hostile)},
				"calm.yaml":    {Data: []byte(strings.Replace(baseSite, "c1", "calm", 1) + nodes(1, small))},
				"m/x.yaml.tmpl": {Data: []byte(strings.ReplaceAll(tt.template, "{{ range .Data.Nodes }}{{ range $.Data.Nodes }}{{ range $.Data.Nodes }}{{ range $.Data.Nodes }}",
					"{{ if eq .Data.ClusterName \"hostile\" }}{{ range .Data.Nodes }}{{ range $.Data.Nodes }}{{ range $.Data.Nodes }}{{ range $.Data.Nodes }}{{ end }}{{ end }}{{ end }}{{ end }}{{ end }}{{ if false }}{{ range $.Data.Nodes }}{{ range $.Data.Nodes }}{{ range $.Data.Nodes }}"))},
			}
			if tt.name == "branching template calls" {
				fsys["m/x.yaml.tmpl"].Data = []byte(`{{ define "a" }}{{ range .Data.Nodes }}{{ template "a" $ }}{{ end }}{{ end }}{{ if eq .Data.ClusterName "hostile" }}{{ template "a" . }}{{ end }}kind: X` + "\n")
			}
			fleet, err := sites.Load(context.Background(), fsys, []string{"hostile.yaml", "calm.yaml"})
			if err != nil || len(fleet.Sites) != 2 {
				t.Fatalf("load: %v, %d problems, the first %v", err, len(fleet.Problems), fleet.Problems[:min(1, len(fleet.Problems))])
			}
			d, err := sites.ReadManifestDir(fsys, "m")
			if err != nil {
				t.Fatal(err)
			}
			r := render.New(render.WithDefaultManifests(d))
			procstat.Bound(t, maxHeap, maxCPU, func() {
				for _, s := range fleet.Sites {
					b, problems := r.Render(s)
					switch s.Name {
					case "hostile":
						if b != nil || len(problems) == 0 || !strings.Contains(problems[0].Error(), tt.want) || !strings.Contains(problems[0].Error(), "m/x.yaml.tmpl") {
							t.Errorf("hostile site: want a problem naming the template and %q, got %v", tt.want, problems)
						}
					case "calm":
						if b == nil {
							t.Errorf("the calm site did not render: %v", problems)
						}
					}
				}
			})
			// No goroutine is left running the template. (Counting the
			// goroutines is not the test: the runtime's finalizer and
			// cleanup goroutines count while they run.)
			if stack := templateStacks(); stack != "" {
				t.Errorf("a template runs on after Render returned:\n%s", stack)
			}
		})
	}
}

// TestExtraManifestsOverAConfigMap: thirty large extra manifests would
// make a ConfigMap Kubernetes refuses. The site fails, naming the file
// that takes it over the limit, before the files are parsed; the other
// site renders, and the heap stays far from what parsing them would take.
func TestExtraManifestsOverAConfigMap(t *testing.T) {
	big := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n  blob: " + strings.Repeat("x", 512<<10) + "\n"
	fsys := fstest.MapFS{
		"big.yaml":  {Data: []byte(strings.Replace(baseSite, "c1", "big", 1) + "    extraManifestPath: extra\n    nodes:\n    - hostName: n0\n")},
		"calm.yaml": {Data: []byte(strings.Replace(baseSite, "c1", "calm", 1) + "    nodes:\n    - hostName: n0\n")},
	}
	for i := range 30 {
		fsys[fmt.Sprintf("extra/%02d.yaml", i)] = &fstest.MapFile{Data: []byte(big)}
	}
	fleet, err := sites.Load(context.Background(), fsys, []string{"big.yaml", "calm.yaml"})
	if err != nil || len(fleet.Sites) != 2 {
		t.Fatalf("load: %v %v", err, fleet.Problems)
	}
	r := render.New()
	procstat.Bound(t, 1<<30, time.Minute, func() {
		for _, s := range fleet.Sites {
			b, problems := r.Render(s)
			switch s.Name {
			case "big":
				if b != nil || len(problems) == 0 || !strings.Contains(problems[0].Error(), "over the 1048576 bytes a ConfigMap can hold") ||
					!strings.Contains(problems[0].Error(), "with extra/01.yaml") {
					t.Errorf("big: want the ConfigMap limit naming extra/01.yaml, got %v", problems)
				}
			case "calm":
				if b == nil {
					t.Errorf("calm did not render: %v", problems)
				}
			}
		}
	})
}

// templateStacks is the stack of every goroutine running text/template
// code, other than the caller's; "" when there is none.
func templateStacks() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var running []string
	for i, g := range strings.Split(string(buf), "\n\n") {
		if i > 0 && strings.Contains(g, "text/template.") {
			running = append(running, g)
		}
	}
	return strings.Join(running, "\n\n")
}
