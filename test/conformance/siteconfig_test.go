// Package conformance checks siteops against output produced by upstream
// code: the SiteConfig generator (cnf-features-deploy release-4.20) for
// every input of the SiteConfig conformance set.
package conformance

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/siteops/siteops/internal/cli"
)

// conformanceSets are the conformance sets of a kind (siteconfig,
// clusterinstance) to run: the copy kept in this repository, and the
// shared set it was copied from when it is present (it may have grown).
func conformanceSets(kind string) []string {
	sets := []string{filepath.Join("testdata", kind)}
	shared := filepath.Join("..", "..", "..", "shared", "conformance", kind)
	if st, err := os.Stat(filepath.Join(shared, "inputs")); err == nil && st.IsDir() {
		sets = append(sets, shared)
	}
	return sets
}

// eachInput runs check as a subtest for every input of the sets, with the
// upstream output expected for it; the input is inputs/<name>.yaml in set.
func eachInput(t *testing.T, sets []string, check func(t *testing.T, set, name string, want []byte)) {
	for _, set := range sets {
		inputs, err := filepath.Glob(filepath.Join(set, "inputs", "*.yaml"))
		if err != nil || len(inputs) == 0 {
			t.Fatalf("no inputs in %s", set)
		}
		for _, in := range inputs {
			name := strings.TrimSuffix(filepath.Base(in), ".yaml")
			t.Run(set+"/"+name, func(t *testing.T) {
				want, err := os.ReadFile(filepath.Join(set, "expected", name+".yaml"))
				if err != nil {
					t.Fatal(err)
				}
				check(t, set, name, want)
			})
		}
	}
}

// deliberate lists the inputs where siteops differs from the generator on
// purpose, and how; docs/conformance.md gives the reasons.
var deliberate = map[string]struct {
	// stderr must contain each of these.
	stderr []string
	// rendered lists the clusters siteops still renders (the generator
	// renders none of a file with an error).
	rendered []string
}{
	"error-missing-cluster-name": {
		stderr:   []string{"inputs/error-missing-cluster-name.yaml:", "clusterName is missing"},
		rendered: []string{"named-ok"},
	},
	"error-unsupported-apiversion": {
		stderr: []string{"inputs/error-unsupported-apiversion.yaml:", `apiVersion "ran.openshift.io/v3"`, "use ran.openshift.io/v1 or ran.openshift.io/v2"},
	},
}

func runCLI(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var out, errb bytes.Buffer
	code = cli.Main(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestSiteConfigConformance(t *testing.T) {
	eachInput(t, conformanceSets("siteconfig"), func(t *testing.T, set, name string, want []byte) {
		stdout, stderr, code := runCLI(t, set, "render", "--extra-manifests-dir", "fixtures/extra-manifest-default", "inputs/"+name+".yaml")
		if d, ok := deliberate[name]; ok {
			if code != cli.ExitFailure {
				t.Errorf("exit code %d, want %d", code, cli.ExitFailure)
			}
			for _, s := range d.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr does not say %q:\n%s", s, stderr)
				}
			}
			if strings.Contains(stdout, "siteConfigError") || strings.Contains(stdout, "kind: SiteConfig") {
				t.Errorf("the input is echoed on stdout:\n%s", stdout)
			}
			var namespaces []string
			for k := range docSet(t, []byte(stdout)) {
				if k.Kind == "Namespace" {
					namespaces = append(namespaces, k.Name)
				}
			}
			if strings.Join(namespaces, ",") != strings.Join(d.rendered, ",") {
				t.Errorf("rendered clusters %v, want %v", namespaces, d.rendered)
			}
			return
		}
		if code != cli.ExitOK {
			t.Fatalf("exit code %d, stderr:\n%s", code, stderr)
		}
		if diffs := diffSets(docSet(t, want), docSet(t, []byte(stdout))); len(diffs) > 0 {
			t.Errorf("output differs from the generator's:\n%s", joinLines(diffs))
		}
	})
}
