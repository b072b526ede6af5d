package sites

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/internal/procstat"
)

// TestKustomizeTreeThatMultiplies: 16 levels of overlays that each
// include two bases would build the bottom one 65,536 times. The tree is
// refused as too large, naming its kustomization, before anything is
// built, and the fleet's other site loads.
func TestKustomizeTreeThatMultiplies(t *testing.T) {
	files := map[string]string{
		"good.yaml":                  siteFile("good"),
		"bomb/kustomization.yaml":    "resources: [l16]\n",
		"bomb/l0/kustomization.yaml": "resources: [cm.yaml]\n",
		"bomb/l0/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n",
	}
	for k := 1; k <= 16; k++ {
		files[fmt.Sprintf("bomb/l%d/kustomization.yaml", k)] = "resources: [a, b]\n"
		for _, side := range []string{"a", "b"} {
			files[fmt.Sprintf("bomb/l%d/%s/kustomization.yaml", k, side)] = fmt.Sprintf("nameSuffix: -%s\nresources: [../../l%d]\n", side, k-1)
		}
	}
	fsys := mapFS(files)
	var fleet *Fleet
	procstat.Bound(t, 1<<30, time.Minute, func() { fleet = load(t, fsys, []string{"bomb", "good.yaml"}) })
	wantSites(t, fleet.Sites, "good")
	p := problemMatching(t, fleet.Problems, "the tree is too large")
	if !strings.Contains(p.Error(), "bomb/kustomization.yaml") {
		t.Errorf("the problem does not name the kustomization: %s", p.Error())
	}
}

// TestTooManySitesInOneFile: a file of thousands of minimal sites is
// refused whole with its position and how to fix it; the other file loads.
func TestTooManySitesInOneFile(t *testing.T) {
	var many strings.Builder
	for i := range MaxSitesPerFile + 1 {
		fmt.Fprintf(&many, "---\napiVersion: siteconfig.open-cluster-management.io/v1alpha1\nkind: ClusterInstance\nmetadata: {name: c%d}\nspec: {clusterName: c%d}\n", i, i)
	}
	fsys := mapFS(map[string]string{"many.yaml": many.String(), "good.yaml": siteFile("good")})
	var fleet *Fleet
	procstat.Bound(t, 1<<30, time.Minute, func() { fleet = load(t, fsys, []string{"many.yaml", "good.yaml"}) })
	wantSites(t, fleet.Sites, "good")
	p := problemMatching(t, fleet.Problems, "the file holds more than 1000 sites")
	if p.Pos.File != "many.yaml" || p.Pos.Line == 0 || !strings.Contains(p.Hint, "split the file") {
		t.Errorf("problem %s: want many.yaml with its line and how to split it", p.Error())
	}
}
