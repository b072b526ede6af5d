// Package policies_test runs the example user policies on the example
// fleet, and on variants of it that break them, as siteops check
// --policy examples/policies would.
package policies_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/siteops/siteops/policy"
	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// check loads, renders and checks paths under root with the example
// policies.
func check(t *testing.T, root string, paths ...string) *report.Report {
	t.Helper()
	ctx := context.Background()
	e, err := policy.Load(ctx, policy.WithUserPolicies("."))
	if err != nil {
		t.Fatalf("load the example policies: %v", err)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fleet, err := sites.Load(ctx, r.FS(), paths)
	if err != nil {
		t.Fatal(err)
	}
	bundles := map[string]*render.Bundle{}
	rr := render.New()
	for _, s := range fleet.Sites {
		b, problems := rr.Render(s)
		if problems.HasErrors() {
			t.Fatalf("render %s: %v", s.Name, problems)
		}
		bundles[s.Name] = b
	}
	rep, err := e.Check(ctx, fleet, bundles)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// userFindings are the findings of the example policies, as
// "file:line rule".
func userFindings(rep *report.Report) []string {
	var out []string
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.Rule, "main.") {
			out = append(out, f.Pos.File+":"+strconv.Itoa(f.Pos.Line)+" "+f.Rule)
		}
	}
	slices.Sort(out)
	return out
}

func TestExampleFleetFollowsThePolicies(t *testing.T) {
	rep := check(t, "../fleet", ".")
	if rep.Sites != 4 {
		t.Fatalf("%d sites checked, want the 4 of examples/fleet", rep.Sites)
	}
	if got := userFindings(rep); len(got) != 0 {
		t.Errorf("the example fleet breaks the example policies: %v", got)
	}
	e, err := policy.Load(context.Background(), policy.WithUserPolicies("."))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range e.Rules() {
		if r.Source != "builtin" {
			ids = append(ids, r.ID)
		}
	}
	if want := []string{"main.deny_hold_in_production", "main.deny_region"}; !slices.Equal(ids, want) {
		t.Errorf("user rules %v, want %v", ids, want)
	}
}

// variant writes an example site, edited, to a directory of its own.
func variant(t *testing.T, file string, edits ...[2]string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../fleet", file))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, e := range edits {
		if !strings.Contains(text, e[0]) {
			t.Fatalf("%s has no %q", file, e[0])
		}
		text = strings.Replace(text, e[0], e[1], 1)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestExamplePoliciesCatch(t *testing.T) {
	for _, tt := range []struct {
		name  string
		edits [][2]string
		want  []string
	}{
		{name: "no region", edits: [][2]string{{"        region: west\n", ""}},
			want: []string{"kestrel-compact.yaml:25 main.deny_region"}},
		{name: "unknown region", edits: [][2]string{{"region: west", "region: wets"}},
			want: []string{"kestrel-compact.yaml:25 main.deny_region"}},
		{name: "held production site", edits: [][2]string{{"      clusterLabels:\n", "      holdInstallation: true\n      clusterLabels:\n"}},
			want: []string{"kestrel-compact.yaml:25 main.deny_hold_in_production"}},
		{name: "held lab site", edits: [][2]string{{"      clusterLabels:\n", "      holdInstallation: true\n      clusterLabels:\n        environment: lab\n"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := variant(t, "kestrel-compact.yaml", tt.edits...)
			got := userFindings(check(t, dir, "kestrel-compact.yaml"))
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings %v, want %v", got, tt.want)
			}
		})
	}
}
