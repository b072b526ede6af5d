package policy

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// Every built-in rule has a fixture pair in rules/testdata/<rule id>/:
// bad.yaml breaks exactly that rule, and marks each line a finding must
// point at with "# want: <rule id>"; good.yaml breaks no rule at all.
// Adding a rule means adding its .rego file and these two files.

// untestedByFixture are the built-in rules no site file can trigger.
var untestedByFixture = []string{RulePolicyTimeout, RulePolicyError} // TestSiteTimeout, TestHostilePolicies

var (
	builtinOnce   sync.Once
	builtinEngine *Engine
	builtinErr    error
)

// testEngine is the engine with the built-in library only, loaded once.
func testEngine(t testing.TB) *Engine {
	t.Helper()
	builtinOnce.Do(func() { builtinEngine, builtinErr = Load(context.Background()) })
	if builtinErr != nil {
		t.Fatalf("load: %v", builtinErr)
	}
	return builtinEngine
}

// loadFixture loads and renders paths under dir, as siteops check does:
// render problems join the load problems, and a site that does not render
// is left out (its problems make it fail).
func loadFixture(t testing.TB, dir string, paths ...string) (*sites.Fleet, map[string]*render.Bundle) {
	t.Helper()
	return loadAndRender(t, dir, render.New(), paths...)
}

// loadAndRender is loadFixture with a renderer of the caller's.
func loadAndRender(t testing.TB, dir string, r *render.Renderer, paths ...string) (*sites.Fleet, map[string]*render.Bundle) {
	t.Helper()
	fleet, err := sites.Load(context.Background(), os.DirFS(dir), paths)
	if err != nil {
		t.Fatalf("load %v: %v", paths, err)
	}
	bundles := map[string]*render.Bundle{}
	kept := fleet.Sites[:0]
	for _, s := range fleet.Sites {
		b, problems := r.Render(s)
		fleet.Problems = append(fleet.Problems, problems...)
		if b != nil {
			bundles[s.Name] = b
			kept = append(kept, s)
		}
	}
	fleet.Sites = kept
	return fleet, bundles
}

// checkFiles loads, renders and checks paths under dir.
func checkFiles(t testing.TB, e *Engine, dir string, opts []CheckOption, paths ...string) *report.Report {
	t.Helper()
	fleet, bundles := loadFixture(t, dir, paths...)
	rep, err := e.Check(context.Background(), fleet, bundles, opts...)
	if err != nil {
		t.Fatalf("check %v: %v", paths, err)
	}
	return rep
}

var wantMarker = regexp.MustCompile(`#\s*want:\s*(\S+)\s*$`)

// wantLines returns the lines of file marked "# want: rule".
func wantLines(t *testing.T, file, rule string) []int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1) // fixtures may have very long lines (embedded files)
	for n := 1; sc.Scan(); n++ {
		if m := wantMarker.FindStringSubmatch(sc.Text()); m != nil {
			if m[1] != rule {
				t.Fatalf("%s:%d: marker names %s, not the fixture's rule %s", file, n, m[1], rule)
			}
			lines = append(lines, n)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return lines
}

func TestRuleFixtures(t *testing.T) {
	e := testEngine(t)
	fixtures := fixtureDirs(t)
	for _, r := range e.Rules() {
		if r.Source == "builtin" && !slices.Contains(fixtures, r.ID) && !slices.Contains(untestedByFixture, r.ID) {
			t.Errorf("rule %s has no fixtures: add rules/testdata/%s/{bad,good}.yaml", r.ID, r.ID)
		}
	}
	for _, rule := range fixtures {
		t.Run(rule, func(t *testing.T) {
			if _, ok := e.byID[rule]; !ok {
				t.Fatalf("rules/testdata/%s names no built-in rule", rule)
			}
			dir := filepath.Join("rules/testdata", rule)
			opts := changeFixture(t, dir)
			t.Run("bad", func(t *testing.T) {
				// Findings of a change rule may point at the base.
				want := map[string][]int{"bad.yaml": wantLines(t, filepath.Join(dir, "bad.yaml"), rule)}
				if opts != nil {
					want["base.yaml"] = wantLines(t, filepath.Join(dir, "base.yaml"), rule)
				}
				if len(want["bad.yaml"])+len(want["base.yaml"]) == 0 {
					t.Fatalf("bad.yaml marks no line with # want: %s", rule)
				}
				rep := checkFiles(t, e, dir, opts, "bad.yaml")
				hit := map[string]bool{}
				for _, f := range rep.Findings {
					switch {
					case f.Rule != rule:
						t.Errorf("unexpected finding: %s", describe(f))
					case !slices.Contains(want[f.Pos.File], f.Pos.Line):
						t.Errorf("finding at %s, not on a marked line %v: %s", f.Pos, want, describe(f))
					case f.Message == "" || f.Remediation == "" || f.Reference == "":
						t.Errorf("finding without message, remediation or reference: %s", describe(f))
					}
					hit[fmt.Sprintf("%s:%d", f.Pos.File, f.Pos.Line)] = true
				}
				for file, lines := range want {
					for _, l := range lines {
						if !hit[fmt.Sprintf("%s:%d", file, l)] {
							t.Errorf("%s:%d is marked but has no %s finding; findings:\n%s", file, l, rule, describeAll(rep.Findings))
						}
					}
				}
			})
			t.Run("good", func(t *testing.T) {
				rep := checkFiles(t, e, dir, opts, "good.yaml")
				if rep.Sites == 0 {
					t.Fatal("good.yaml defines no site")
				}
				if len(rep.Findings) > 0 {
					t.Errorf("good.yaml has findings:\n%s", describeAll(rep.Findings))
				}
			})
		})
	}
}

// fixtureDirs lists the fixture directories of rules/testdata, one per
// rule.
func fixtureDirs(t testing.TB) []string {
	t.Helper()
	dirs, err := os.ReadDir("rules/testdata")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range dirs {
		if d.IsDir() {
			out = append(out, d.Name())
		}
	}
	return out
}

// changeFixture reads the base.yaml of a change rule's fixture, the
// previous revision of bad.yaml and good.yaml, in which every site has
// started installing. Fixtures without one are checked without a change.
func changeFixture(t *testing.T, dir string) []CheckOption {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "base.yaml")); err != nil {
		return nil
	}
	base, _ := loadFixture(t, dir, "base.yaml")
	started := map[string]bool{}
	for _, s := range base.Sites {
		started[s.Name] = true
	}
	return []CheckOption{WithChange(Change{Base: base, BaseRevision: "base", Started: started})}
}

func describe(f report.Finding) string {
	s := fmt.Sprintf("%s: %s [%s] %s: %s", f.Pos, f.Site, f.Rule, f.Field, f.Message)
	if f.Waived != "" {
		s += " (waived: " + f.Waived + ")"
	}
	return s
}

func describeAll(fs []report.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("\t" + describe(f) + "\n")
	}
	return b.String()
}
