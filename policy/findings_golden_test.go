package policy

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// The findings of every rule fixture (bad.yaml and good.yaml), of all of
// them checked as one fleet, and of the example fleet, with its user policies, are held to golden files in every
// output format: a change to how the engine evaluates (input documents, the
// rules' common-case paths, which evaluations are skipped) may not change a
// rule id, message, field, file, line or the order of any finding. The
// golden files were written by the engine before those changes; go test
// ./policy -run TestFindingsGolden -update rewrites them, which is for a
// change meant to alter what a rule says.

const goldenFindingsDir = "testdata/findings"

// goldenCase is one check whose report is compared, in formats (every
// format when nil).
type goldenCase struct {
	name    string
	check   func(t *testing.T) (*report.Report, []report.Rule)
	formats []string
}

func TestFindingsGolden(t *testing.T) {
	var cases []goldenCase
	var everyFixture []string
	for _, name := range fixtureDirs(t) {
		everyFixture = append(everyFixture, name+"/bad.yaml", name+"/good.yaml")
		dir := filepath.Join("rules/testdata", name)
		for _, file := range []string{"bad.yaml", "good.yaml"} {
			cases = append(cases, goldenCase{name: name + "." + file, check: func(t *testing.T) (*report.Report, []report.Rule) {
				e := testEngine(t)
				return checkFiles(t, e, dir, changeFixture(t, dir), file), e.Rules()
			}})
		}
	}
	// Every fixture in one fleet: the fleet-wide rules see the sites of
	// all of them, names and values repeated across fixtures included.
	// The text format says all a finding is (the fixtures' own files hold
	// the others): the file stays a tenth of the size.
	cases = append(cases, goldenCase{name: "every-fixture", check: func(t *testing.T) (*report.Report, []report.Rule) {
		e := testEngine(t)
		return checkFiles(t, e, "rules/testdata", nil, everyFixture...), e.Rules()
	}, formats: []string{report.FormatText}})
	cases = append(cases, goldenCase{name: "examples-fleet", check: checkExampleFleet})
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.name+".golden"] = true
		t.Run(c.name, func(t *testing.T) {
			rep, rules := c.check(t)
			golden(t, filepath.Join(goldenFindingsDir, c.name+".golden"), inFormats(t, rep, rules, c.formats))
		})
	}
	if *update {
		return
	}
	files, err := os.ReadDir(goldenFindingsDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !seen[f.Name()] {
			t.Errorf("%s/%s belongs to no fixture: remove it", goldenFindingsDir, f.Name())
		}
	}
}

// checkExampleFleet checks examples/fleet with the default extra manifests
// and the example user policies, as the README's command does.
func checkExampleFleet(t *testing.T) (*report.Report, []report.Rule) {
	ctx := context.Background()
	e, err := Load(ctx, WithUserPolicies("../examples/policies"))
	if err != nil {
		t.Fatal(err)
	}
	md, err := sites.ReadManifestDir(os.DirFS("../examples/extra-manifests"), ".")
	if err != nil {
		t.Fatal(err)
	}
	fleet, bundles := loadAndRender(t, "../examples/fleet", render.New(render.WithDefaultManifests(md)), ".")
	if len(fleet.Sites) == 0 {
		t.Fatal("the example fleet has no site")
	}
	rep, err := e.Check(ctx, fleet, bundles)
	if err != nil {
		t.Fatal(err)
	}
	return rep, e.Rules()
}

// inFormats writes a report in the given output formats (all when nil),
// one after the other under a header line each. The writers are given the
// rules the findings name: SARIF lists every rule it is given, and the
// whole library in every file would be most of the golden files.
func inFormats(t *testing.T, rep *report.Report, rules []report.Rule, formats []string) []byte {
	t.Helper()
	if formats == nil {
		formats = report.Formats()
	}
	named := map[string]bool{}
	for _, f := range rep.Findings {
		named[f.Rule] = true
	}
	rules = slices.DeleteFunc(slices.Clone(rules), func(r report.Rule) bool { return !named[r.ID] })
	var out bytes.Buffer
	for _, format := range formats {
		w, err := report.Get(format, report.WithRules(rules), report.WithRoot("."), report.WithVersion("golden"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "==== %s ====\n", format)
		if err := w.Write(&out, rep); err != nil {
			t.Fatalf("write %s: %v", format, err)
		}
	}
	return out.Bytes()
}

// golden compares got with the golden file at path, or with -update
// writes it.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./policy -run %s -update writes it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the output differs from %s (run with -update and review the diff):\n%s", path, firstDifference(got, want))
	}
}

// firstDifference shows the first line where got and want part.
func firstDifference(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl []byte
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if !bytes.Equal(gl, wl) {
			return fmt.Sprintf("line %d:\n got: %s\nwant: %s", i+1, gl, wl)
		}
	}
	return "(same lines, different ends)"
}
