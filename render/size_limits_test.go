package render_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/siteops/siteops/internal/procstat"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

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
	stop := procstat.WatchHeap()
	cpu := procstat.CPUTime()
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
	if used := procstat.CPUTime() - cpu; used > time.Minute {
		t.Errorf("rendering used %s of CPU", used)
	}
	if peak := stop(); peak > 1<<30 {
		t.Errorf("the heap reached %d MiB", peak>>20)
	}
}
