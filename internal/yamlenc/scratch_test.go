package yamlenc

import (
	"os"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"
)

func TestScratchDiff(t *testing.T) {
	for _, o := range benchObjects() {
		a, _ := Marshal(o.v)
		b, _ := sigsyaml.Marshal(o.v)
		os.WriteFile("/tmp/ours-"+o.name+".yaml", a, 0o644)
		os.WriteFile("/tmp/sigs-"+o.name+".yaml", b, 0o644)
	}
}
