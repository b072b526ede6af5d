package sites

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

const probeBase = `apiVersion: ran.openshift.io/v1
kind: SiteConfig
metadata:
  name: s
spec:
  clusterImageSetNameRef: img
  clusters:
  - clusterName: c1
    nodes:
    - hostName: n0
      nodeNetwork:
        config: %s
`

func probe(t *testing.T, name, doc string) {
	start := time.Now()
	sites, ps := decodeFile("f.yaml", []byte(doc), decodeOptions{})
	t.Logf("%s: %v sites=%d problems=%d", name, time.Since(start), len(sites), len(ps))
	for i, p := range ps {
		if i > 3 {
			break
		}
		t.Logf("  %s", p.Error())
	}
}

func TestProbeBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("x: &a0 [\"lol\"]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "x%d: &a%d [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	doc := "anchors:\n" + indent(b.String(), "  ") + strings.Replace(probeBase, "%s", "*a9", 1)
	probe(t, "bomb", doc)
}

func indent(s, p string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return p + strings.Join(lines, "\n"+p) + "\n"
}
