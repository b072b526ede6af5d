package policy

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/rules.md and the golden files")

const rulesDocPath = "../docs/rules.md"

// TestRulesDoc fails when docs/rules.md does not match the rules'
// metadata; go test ./policy -run TestRulesDoc -update rewrites it.
func TestRulesDoc(t *testing.T) {
	got := rulesDoc(testEngine(t).rules)
	if *update {
		if err := os.WriteFile(rulesDocPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(rulesDocPath)
	if err != nil {
		t.Fatalf("%v (run go test ./policy -run TestRulesDoc -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run go test ./policy -run TestRulesDoc -update", rulesDocPath)
	}
}
