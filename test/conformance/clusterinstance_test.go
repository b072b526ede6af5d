package conformance

import (
	"bufio"
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/siteops/siteops/internal/cli"
)

// TestClusterInstanceConformance renders every input of the set and checks
// that the objects equal the SiteConfig operator's, value types included,
// in the operator's apply order, and that the suppressed ones match.
func TestClusterInstanceConformance(t *testing.T) {
	eachInput(t, conformanceSets("clusterinstance"), func(t *testing.T, set, name string, want []byte) {
		stdout, stderr, code := runCLI(t, set, "render", "inputs/"+name+".yaml")
		if code != cli.ExitOK {
			t.Fatalf("exit code %d, stderr:\n%s", code, stderr)
		}
		if diffs := diffSets(docSet(t, want), docSet(t, []byte(stdout))); len(diffs) > 0 {
			t.Errorf("objects differ from the operator's:\n%s", joinLines(diffs))
		}
		if got, wantOrder := docOrder(t, []byte(stdout)), docOrder(t, want); !slices.Equal(got, wantOrder) {
			t.Errorf("apply order\n got  %v\n want %v", got, wantOrder)
		}
		if got, wantSup := suppressedIn(stderr), suppressedInExpected(want); !slices.Equal(got, wantSup) {
			t.Errorf("suppressed %v, want %v", got, wantSup)
		}
	})
}

// docOrder lists the documents of a stream as kind namespace/name.
func docOrder(t *testing.T, data []byte) []string {
	t.Helper()
	var order []string
	for _, doc := range splitDocs(data) {
		set := docSet(t, doc)
		for k := range set {
			order = append(order, k.String())
		}
	}
	return order
}

func splitDocs(data []byte) [][]byte {
	var docs [][]byte
	for _, d := range bytes.Split(data, []byte("\n---")) {
		if len(bytes.TrimSpace(bytes.TrimPrefix(d, []byte("---")))) > 0 {
			docs = append(docs, d)
		}
	}
	return docs
}

// suppressedInExpected reads the expected file's comment lines
// "# suppressed (rendered, not applied): Kind ns/name (sync-wave N)".
func suppressedInExpected(data []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "# suppressed (rendered, not applied): "); ok {
			out = append(out, rest[:strings.LastIndex(rest, " (")])
		}
	}
	slices.Sort(out)
	return out
}

// suppressedIn reads siteops' notes "suppressed: Kind ns/name" from stderr.
func suppressedIn(stderr string) []string {
	var out []string
	for _, line := range strings.Split(stderr, "\n") {
		if i := strings.Index(line, "suppressed: "); i >= 0 {
			out = append(out, strings.TrimSpace(line[i+len("suppressed: "):]))
		}
	}
	slices.Sort(out)
	return out
}
