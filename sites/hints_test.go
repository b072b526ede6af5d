package sites

import (
	"strings"
	"testing"
)

// Every problem about the input says how to fix it.
func TestProblemsSayHowToFix(t *testing.T) {
	fsys := mapFS(map[string]string{
		"big.yaml":     siteFile("big") + "# " + strings.Repeat("x", 2000) + "\n",
		"esc.yaml":     siteFileWith("esc", "extraManifestPath: ../x\n"+oneNode("n0")),
		"abs.yaml":     siteFileWith("abs", "biosConfigRef: {filePath: /etc/bios}\n"+oneNode("n0")),
		"miss.yaml":    siteFileWith("miss", "crTemplates: {ManagedCluster: nope.yaml}\n"+oneNode("n0")),
		"shape.yaml":   siteFileWith("shape", "clusterNetwork: {cidr: 10.0.0.0/8}\nproxy: [a]\nnodes: host\n"),
		"scalar.yaml":  siteFileWith("scalar", "clusterImageSetNameRef: [a, b]\n"+oneNode("n0")),
		"unknown.yaml": "apiVersion: v1\nkind: Widget\n",
	})
	fleet := load(t, fsys, []string{"big.yaml", "esc.yaml", "abs.yaml", "miss.yaml", "shape.yaml", "scalar.yaml", "unknown.yaml", "gone.yaml", "../up.yaml"},
		WithMaxFileSize(1024))
	want := []string{
		"big.yaml: big.yaml is",
		"esc.yaml:", "abs.yaml:", "miss.yaml:",
		"shape.yaml:12:21:", "shape.yaml:13:12:", "shape.yaml:14:12:", "scalar.yaml:", "unknown.yaml:", "gone.yaml:", "../up.yaml:",
	}
	for _, w := range want {
		problemMatching(t, fleet.Problems, w)
	}
	for _, p := range fleet.Problems {
		if p.Hint == "" {
			t.Errorf("no hint: %s", p.Error())
		}
		if p.Pos.File == "" {
			t.Errorf("no file: %s", p.Error())
		}
	}
}
