package policy

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/sites"
)

// writeFiles writes name → content under a new temporary directory.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// goodSite is a fixture that breaks no built-in rule.
const goodSite = "rules/testdata/ztp.network.vips-required"

func findingsOf(rep *report.Report, rule string) []report.Finding {
	var out []report.Finding
	for _, f := range rep.Findings {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

func TestUserPolicies(t *testing.T) {
	policies := writeFiles(t, map[string]string{
		"main.rego": `package main

# METADATA
# title: Sites use the company domain
# custom:
#   remediation: Use corp.example.com.
deny contains msg if {
	input.site.cluster.baseDomain != "corp.example.com"
	msg := sprintf("base domain %s is not corp.example.com", [input.site.cluster.baseDomain])
}

warn_region contains {"msg": "the cluster has no region label", "field": input.site.fields.labels} if {
	not input.site.cluster.labels.region
}

violation_never contains "never" if false

helper := 1
`,
		"sub/nested.rego": `package main.network

deny_vip_count contains {"msg": sprintf("%d API VIPs", [count(input.site.cluster.apiVIPs)]), "field": input.site.fields.apiVIPs[0]} if {
	count(input.site.cluster.apiVIPs) > 0
}
`,
		"other.rego": `package other

deny contains "not in the namespace" if true
`,
		"lib_test.rego": `package main

test_helper if helper == 1
`,
	})
	e, err := Load(context.Background(), WithUserPolicies(policies))
	if err != nil {
		t.Fatal(err)
	}
	var user []report.Rule
	for _, r := range e.Rules() {
		if r.Source != "builtin" {
			user = append(user, r)
		}
	}
	var ids []string
	for _, r := range user {
		ids = append(ids, r.ID)
	}
	want := []string{"main.deny", "main.network.deny_vip_count", "main.violation_never", "main.warn_region"}
	if !slices.Equal(ids, want) {
		t.Fatalf("user rules %v, want %v", ids, want)
	}
	if user[0].Title != "Sites use the company domain" || user[0].Remediation != "Use corp.example.com." || user[0].Severity != report.Deny {
		t.Errorf("main.deny metadata: %+v", user[0])
	}
	if user[3].Severity != report.Warn || !strings.HasSuffix(user[3].Source, "main.rego") {
		t.Errorf("main.warn_region: %+v", user[3])
	}

	rep := checkFiles(t, e, goodSite, nil, "good.yaml")
	byRule := map[string][]report.Finding{}
	for _, f := range rep.Findings {
		byRule[f.Rule] = append(byRule[f.Rule], f)
	}
	if len(byRule) != 3 {
		t.Fatalf("findings:\n%s", describeAll(rep.Findings))
	}
	if f := byRule["main.deny"]; len(f) != 1 || f[0].Severity != report.Deny || f[0].Message != "base domain example.net is not corp.example.com" ||
		f[0].Pos.File != "good.yaml" || f[0].Remediation != "Use corp.example.com." {
		t.Errorf("main.deny: %v", f)
	}
	// A field path gives the finding the field's position.
	if f := byRule["main.network.deny_vip_count"]; len(f) != 1 || f[0].Field != "spec.clusters[0].apiVIPs[0]" || f[0].Pos.Line != 17 {
		t.Errorf("main.network.deny_vip_count: %v", f)
	}
	if f := byRule["main.warn_region"]; len(f) != 1 || f[0].Severity != report.Warn {
		t.Errorf("main.warn_region: %v", f)
	}
}

func TestUserPolicyNamespace(t *testing.T) {
	policies := writeFiles(t, map[string]string{"p.rego": "package team.checks\n\ndeny_x contains \"x\" if true\n"})
	e, err := Load(context.Background(), WithUserPolicies(policies), WithNamespace("team"))
	if err != nil {
		t.Fatal(err)
	}
	rep := checkFiles(t, e, goodSite, nil, "good.yaml")
	if f := findingsOf(rep, "team.checks.deny_x"); len(f) != 1 || f[0].Message != "x" {
		t.Errorf("findings:\n%s", describeAll(rep.Findings))
	}
}

func TestUserData(t *testing.T) {
	policies := writeFiles(t, map[string]string{"p.rego": `package main

deny contains msg if {
	not input.site.cluster.imageSet in data.releases.allowed
	msg := sprintf("image set %s is not allowed (%s)", [input.site.cluster.imageSet, concat(", ", data.releases.allowed)])
}
`})
	data := writeFiles(t, map[string]string{
		"releases/allowed.yaml": "allowed:\n  - openshift-4.19.9\n",
		"releases/more.json":    `{"notes": {"owner": "platform"}}`,
		"top.yml":               "team: edge\n",
	})
	e, err := Load(context.Background(), WithUserPolicies(policies), WithDataDirs(data))
	if err != nil {
		t.Fatal(err)
	}
	rep := checkFiles(t, e, goodSite, nil, "good.yaml")
	if f := findingsOf(rep, "main.deny"); len(f) != 1 || f[0].Message != "image set openshift-4.20.6 is not allowed (openshift-4.19.9)" {
		t.Errorf("findings:\n%s", describeAll(rep.Findings))
	}
}

func TestPolicyErrors(t *testing.T) {
	tests := []struct {
		name   string
		policy map[string]string
		data   map[string]string
		want   []string // each a substring of one error, in order
	}{
		{name: "parse error", policy: map[string]string{"bad.rego": "package main\n\ndeny contains msg if {\n\tmsg := \n}\n"},
			want: []string{"bad.rego:5:", "rego_parse_error"}},
		{name: "v0 syntax", policy: map[string]string{"old.rego": "package main\n\ndeny[msg] {\n\tmsg := \"x\"\n}\n"},
			want: []string{"old.rego:3:", "rego_parse_error"}},
		{name: "unsafe variable", policy: map[string]string{"u.rego": "package main\n\ndeny contains msg if {\n\tx > 1\n\tmsg := \"x\"\n}\n"},
			want: []string{"u.rego:4:", "rego_unsafe_var_error"}},
		{name: "reserved package", policy: map[string]string{"r.rego": "package siteops.rules.mine\n\ndeny contains \"x\" if true\n"},
			want: []string{"r.rego:1:", "reserved"}},
		{name: "two files broken", policy: map[string]string{"a.rego": "package main\ndeny contains", "b.rego": "package main\n\nx := [\n"},
			want: []string{"a.rego:2:", "b.rego:"}},
		{name: "empty module", policy: map[string]string{"empty.rego": "# nothing\n"}, want: []string{"empty.rego: ", "empty module"}},
		{name: "data not YAML", data: map[string]string{"d/x.yaml": "a: 1\nb: [\n"}, want: []string{"x.yaml:", "not valid YAML"}},
		{name: "data not a mapping", data: map[string]string{"x.json": "[1, 2]"}, want: []string{"x.json", "not a mapping"}},
		{name: "data conflict", data: map[string]string{"a.yaml": "k: 1\n", "b.yaml": "k: 2\n"}, want: []string{"b.yaml", "set by another data file"}},
		{name: "reserved data", data: map[string]string{"siteops/x.yaml": "k: 1\n"}, want: []string{"x.yaml", "reserved"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []Option
			if tt.policy != nil {
				opts = append(opts, WithUserPolicies(writeFiles(t, tt.policy)))
			}
			if tt.data != nil {
				opts = append(opts, WithDataDirs(writeFiles(t, tt.data)))
			}
			_, err := Load(context.Background(), opts...)
			if err == nil {
				t.Fatal("no error")
			}
			var pe *PolicyError
			if !errors.As(err, &pe) || pe.Pos.File == "" {
				t.Errorf("error carries no *PolicyError with a file: %v", err)
			}
			msg := err.Error()
			for _, w := range tt.want {
				i := strings.Index(msg, w)
				if i < 0 {
					t.Fatalf("error %q does not contain %q", msg, w)
				}
				msg = msg[i+len(w):]
			}
		})
	}
}

func TestMissingPolicyDir(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	_, err := Load(context.Background(), WithUserPolicies(missing))
	var pe *PolicyError
	if !errors.As(err, &pe) || pe.Pos.File != missing || !strings.Contains(pe.Message, "does not exist") {
		t.Errorf("error = %v", err)
	}
}

func TestSandbox(t *testing.T) {
	for _, call := range []string{
		`http.send({"method": "get", "url": "http://example.com"})`,
		`opa.runtime()`,
		`net.lookup_ip_addr("example.com")`,
		`trace("x")`,
	} {
		t.Run(strings.SplitN(call, "(", 2)[0], func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"p.rego": "package main\n\ndeny contains \"x\" if {\n\tx := " + call + "\n\tx\n}\n"})
			_, err := Load(context.Background(), WithUserPolicies(dir))
			if err == nil || !strings.Contains(err.Error(), "p.rego:4") || !strings.Contains(err.Error(), "undefined function") {
				t.Errorf("error = %v, want an undefined-function error at p.rego:4", err)
			}
		})
	}
	// The pure network functions stay available.
	dir := writeFiles(t, map[string]string{"p.rego": "package main\n\ndeny contains \"x\" if net.cidr_contains(\"10.0.0.0/8\", \"10.1.2.3\")\n"})
	if _, err := Load(context.Background(), WithUserPolicies(dir)); err != nil {
		t.Errorf("net.cidr_contains: %v", err)
	}
}

func TestSiteTimeout(t *testing.T) {
	dir := writeFiles(t, map[string]string{"slow.rego": `package main

deny contains "done" if {
	count([1 | some i in numbers.range(1, 5000); some j in numbers.range(1, 5000)]) > 0
}
`})
	e, err := Load(context.Background(), WithUserPolicies(dir), WithSiteTimeout(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rep := checkFiles(t, e, "rules/testdata/ztp.nodes.hostname-unique", nil, "good.yaml")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("check took %s with a 50ms limit per site", d)
	}
	got := findingsOf(rep, RulePolicyTimeout)
	if len(got) != 2 || got[0].Site == got[1].Site || got[0].Severity != report.Deny || !strings.Contains(got[0].Message, "longer than 50ms") {
		t.Errorf("findings:\n%s", describeAll(rep.Findings))
	}
	if len(rep.Findings) != 2 {
		t.Errorf("a timed-out site has only its timeout finding:\n%s", describeAll(rep.Findings))
	}
}

// TestRuntimeErrorIsAFinding: a policy that fails at run time (two values
// for one complete rule, a result of the wrong shape) fails each site it
// fails on, with the policy's file and line, and the check goes on.
func TestRuntimeErrorIsAFinding(t *testing.T) {
	tests := []struct{ name, policy, want string }{
		{"conflict", `package main

x := 1 if input.site.name != ""

x := 2 if input.site.name != ""

deny contains "x" if x
`, "conflict"},
		{"bad result", "package main\n\ndeny contains {\"message\": \"no msg key\"} if true\n", "main.deny"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"p.rego": tt.policy})
			e, err := Load(context.Background(), WithUserPolicies(dir))
			if err != nil {
				t.Fatal(err)
			}
			fleet, bundles := loadFixture(t, goodSite, "good.yaml")
			rep, err := e.Check(context.Background(), fleet, bundles)
			if err != nil {
				t.Fatalf("the check stopped: %v", err)
			}
			got := findingsOf(rep, RulePolicyError)
			if len(got) != len(fleet.Sites) || len(got) == 0 || !strings.Contains(got[0].Message, tt.want) {
				t.Errorf("want one %s finding per site naming %q:\n%s", RulePolicyError, tt.want, describeAll(rep.Findings))
			}
			if tt.name == "conflict" && (!strings.HasSuffix(got[0].Pos.File, "p.rego") || got[0].Pos.Line == 0) {
				t.Errorf("the finding is not placed in the policy: %s", describe(got[0]))
			}
		})
	}
}

func TestWaivers(t *testing.T) {
	e := testEngine(t)
	dir := writeFiles(t, map[string]string{"site.yaml": strings.Replace(readText(t, "rules/testdata/ztp.nodes.mac-valid/bad.yaml"),
		"  namespace: fixture\n", "  namespace: fixture\n  annotations:\n    siteops.io/waive: |\n      ztp.nodes.mac-valid: the NICs are replaced next week, CHG-42\n      site.load-warning: known typo, kept for the demo\n", 1)})
	rep := checkFiles(t, e, dir, nil, "site.yaml")
	if len(rep.Findings) != 2 {
		t.Fatalf("findings:\n%s", describeAll(rep.Findings))
	}
	for _, f := range rep.Findings {
		if f.Rule != "ztp.nodes.mac-valid" || f.Waived != "the NICs are replaced next week, CHG-42" {
			t.Errorf("not waived: %s", describe(f))
		}
	}
	if rep.Waived() != 2 || rep.ExitCode(true) != 0 {
		t.Errorf("waived %d, exit code %d", rep.Waived(), rep.ExitCode(true))
	}
}

func TestWaiveLoadWarning(t *testing.T) {
	e := testEngine(t)
	dir := writeFiles(t, map[string]string{"site.yaml": strings.Replace(readText(t, "rules/testdata/site.load-warning/bad.yaml"),
		"  namespace: fixture\n", "  namespace: fixture\n  annotations:\n    siteops.io/waive: \"site.load-warning: generated by an old tool\"\n", 1)})
	rep := checkFiles(t, e, dir, nil, "site.yaml")
	if len(rep.Findings) != 1 || rep.Findings[0].Waived != "generated by an old tool" {
		t.Errorf("findings:\n%s", describeAll(rep.Findings))
	}
}

func TestParseWaivers(t *testing.T) {
	tests := []struct {
		in   string
		want []waiver
		bad  []string
	}{
		{in: "ztp.nodes.role: lab", want: []waiver{{"ztp.nodes.role", "lab"}}},
		{in: "a.b: one, two\nc.d: three", want: []waiver{{"a.b", "one, two"}, {"c.d", "three"}}},
		{in: "a.b: one, c.d: two", want: []waiver{{"a.b", "one"}, {"c.d", "two"}}},
		{in: "a.b: see: INC-1", want: []waiver{{"a.b", "see: INC-1"}}},
		{in: "a.b:", bad: []string{"a.b:"}},
		{in: "a.b:, c.d: ok", want: []waiver{{"c.d", "ok"}}, bad: []string{"a.b:"}},
		{in: "just words", bad: []string{"just words"}},
		{in: "main.deny_x: reason\n", want: []waiver{{"main.deny_x", "reason"}}},
		{in: "  \n", want: nil},
	}
	for _, tt := range tests {
		got, bad := parseWaivers(tt.in)
		if !slices.Equal(got, tt.want) || !slices.Equal(bad, tt.bad) {
			t.Errorf("parseWaivers(%q) = %v, %q; want %v, %q", tt.in, got, bad, tt.want, tt.bad)
		}
	}
}

func TestIgnitionErrors(t *testing.T) {
	tests := []struct {
		name, config, want string // want: a substring of the first error; "" for none
	}{
		{"valid 3.2", `{"ignition":{"version":"3.2.0"}}`, ""},
		{"valid 3.4 with a file", `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/motd","mode":420}]}}`, ""},
		{"not JSON", `{"ignition":`, "unexpected end of JSON input"},
		{"no version", `{}`, "invalid config version"},
		{"unknown version", `{"ignition":{"version":"9.9.0"}}`, "unsupported config version"},
		{"relative path", `{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"etc/motd"}]}}`, "path not absolute"},
		{"duplicate file", `{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/a"},{"path":"/a"}]}}`, "duplicate"},
	}
	c := &ignitionCache{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ignitionErrors(tt.config)
			if (tt.want == "") != (len(got) == 0) || tt.want != "" && !strings.Contains(got[0].String(), tt.want) {
				t.Errorf("errors %v, want one with %q", got, tt.want)
			}
			if again := c.errors(tt.config); again.String() != c.errors(tt.config).String() {
				t.Error("cache returns a different result")
			}
		})
	}
}

func TestBMCScheme(t *testing.T) {
	tests := []struct{ addr, scheme, key string }{
		{"redfish-virtualmedia+https://10.0.0.1/redfish/v1/Systems/1", "redfish-virtualmedia+https", "10.0.0.1/redfish/v1/Systems/1"},
		{"idrac-virtualmedia://BMC.Example.com/redfish/v1/Systems/System.Embedded.1/", "idrac-virtualmedia", "bmc.example.com/redfish/v1/Systems/System.Embedded.1"},
		{"ipmi://10.0.0.1:623", "ipmi", "10.0.0.1:623"},
		{"10.0.0.1", "ipmi", "10.0.0.1"},
		{"10.0.0.1:623", "ipmi", "10.0.0.1:623"},
		{"[fd00::1]:623", "ipmi", "[fd00::1]:623"},
		{"redfish://[fd00::1]/redfish/v1/Systems/1", "redfish", "[fd00::1]/redfish/v1/Systems/1"},
		{"", "", ""},
	}
	for _, tt := range tests {
		scheme, key := bmcScheme(tt.addr)
		if scheme != tt.scheme || key != tt.key {
			t.Errorf("bmcScheme(%q) = %q, %q; want %q, %q", tt.addr, scheme, key, tt.scheme, tt.key)
		}
	}
}

func TestLoadProblemsAreFindings(t *testing.T) {
	e := testEngine(t)
	fleet := &sites.Fleet{Problems: sites.Problems{
		{Pos: sites.Position{File: "a.yaml", Line: 3}, Severity: sites.SeverityError, Site: "x", Field: "spec.clusters[0]", Message: "broken", Hint: "fix it"},
		{Pos: sites.Position{File: "b.yaml"}, Severity: sites.SeverityWarning, Message: "odd"},
	}}
	rep, err := e.Check(context.Background(), fleet, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 2 {
		t.Fatalf("findings:\n%s", describeAll(rep.Findings))
	}
	f := rep.Findings[0]
	if f.Rule != RuleSiteLoad || f.Severity != report.Deny || f.Site != "x" || f.Remediation != "fix it" || f.Pos.Line != 3 {
		t.Errorf("load error: %s", describe(f))
	}
	if f := rep.Findings[1]; f.Rule != RuleSiteLoadWarning || f.Severity != report.Warn {
		t.Errorf("load warning: %s", describe(f))
	}
}

func TestCheckCancelled(t *testing.T) {
	e := testEngine(t)
	fleet, bundles := loadFixture(t, "rules/testdata/ztp.nodes.hostname-unique", "good.yaml")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Check(ctx, fleet, bundles); !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
}

func TestConcurrentChecks(t *testing.T) {
	e := testEngine(t)
	fleet, bundles := loadFixture(t, "rules/testdata/ztp.nodes.mac-unique", "bad.yaml")
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			rep, err := e.Check(context.Background(), fleet, bundles)
			if err == nil && len(rep.Findings) != 5 {
				err = errors.New(describeAll(rep.Findings))
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func readText(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestUserPolicyReadsObjectsAndPositions(t *testing.T) {
	dir := writeFiles(t, map[string]string{"p.rego": `package main

deny contains {"msg": sprintf("%s %s", [o.kind, o.metadata.name]), "object": {"kind": o.kind, "name": o.metadata.name, "namespace": o.metadata.namespace}} if {
	some o in input.objects
	o.kind == "BareMetalHost"
}

warn contains sprintf("role written at line %d", [input.positions[field].line]) if {
	field := sprintf("%s.role", [input.site.nodes[0].path])
}
`})
	e, err := Load(context.Background(), WithUserPolicies(dir))
	if err != nil {
		t.Fatal(err)
	}
	if !e.NeedsObjects() {
		t.Error("NeedsObjects is false for a policy that reads input.objects")
	}
	rep := checkFiles(t, e, "rules/testdata/ztp.network.sno-no-vips", nil, "good.yaml")
	deny, warn := findingsOf(rep, "main.deny"), findingsOf(rep, "main.warn")
	if len(deny) != 1 || deny[0].Message != "BareMetalHost sno-vips.example.net" || deny[0].Object == nil || deny[0].Object.Kind != "BareMetalHost" {
		t.Errorf("main.deny: %v", deny)
	}
	if len(warn) != 1 || warn[0].Message != "role written at line 25" {
		t.Errorf("main.warn: %v", warn)
	}
}
