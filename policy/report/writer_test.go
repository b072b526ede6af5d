package report

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/siteops/siteops/sites"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// rules is the rule metadata the tests give with WithRules. One rule has
// no findings (SARIF still lists it); user.main.warn_labels has no
// metadata at all.
var rules = []Rule{
	{
		ID: "ztp.network.vip-in-machine-network", Severity: Deny,
		Title:       "API and ingress VIPs are inside a machine network",
		Remediation: "Pick VIPs inside one of spec.machineNetwork, or add the network they are in.",
		Reference:   "https://docs.openshift.com/container-platform/4.18/installing/installing_bare_metal/ipi/ipi-install-installation-workflow.html",
		Source:      "builtin",
	},
	{
		ID: "ztp.hosts.unique-mac", Severity: Deny,
		Title:       "Host MAC addresses are unique across the fleet",
		Remediation: "Correct the MAC address; a MAC belongs to one host of one site.",
		Reference:   "openshift/installer pkg/asset/agent/agentconfig/agenthosts.go",
		Source:      "builtin",
	},
	{
		ID: "ztp.bmc.disable-certificate-verification", Severity: Warn,
		Title:       "BMC TLS certificates are verified",
		Remediation: "Install a certificate on the BMC and drop disableCertificateVerification.",
		Reference:   "stolostron/siteconfig internal/templates/assisted-installer/template.go",
		Source:      "builtin",
	},
	{
		ID: "ztp.installer-args.allowed", Severity: Deny,
		Title:       "Installer arguments come from the allowed list",
		Remediation: "Use only the arguments coreos-installer accepts from assisted-service (--append-karg, --delete-karg, ...).",
		Reference:   "openshift/assisted-service pkg/validations/validations.go",
		Source:      "builtin",
	},
	{
		ID: "ztp.cluster.control-plane-count", Severity: Deny,
		Title:       "The control-plane count suits the topology",
		Remediation: "Use 1, 3, 4 or 5 control-plane nodes, or 2 with an arbiter.",
		Reference:   "openshift/installer pkg/asset/agent/installconfig.go",
		Source:      "builtin",
	},
}

// testCase is a report to print in every format. The findings are in no
// particular order, as an engine may produce them.
type testCase struct {
	name   string
	report Report
	opts   []Option
}

func pos(file string, line, col int) sites.Position {
	return sites.Position{File: file, Line: line, Column: col}
}

func testCases() []testCase {
	mixed := Report{
		Revision: "main@sha1:5f1c2e9d",
		Sites:    3,
		Findings: []Finding{
			{
				Rule: "ztp.bmc.disable-certificate-verification", Severity: Warn, Site: "sno2",
				Field:   "spec.nodes[0].bmcAddress",
				Message: "BMC of host sno2-master-0 skips TLS certificate verification",
				Pos:     pos("sites/sno2.yaml", 14, 7),
			},
			{
				Rule: "ztp.network.vip-in-machine-network", Severity: Deny, Site: "cnf-multi",
				Field:   "spec.apiVIPs[0]",
				Object:  &ObjectRef{APIVersion: "extensions.hive.openshift.io/v1beta1", Kind: "AgentClusterInstall", Namespace: "cnf-multi", Name: "cnf-multi"},
				Message: "API VIP 10.0.9.5 is outside every machine network (10.0.1.0/24)",
				Pos:     pos("sites/cnf-multi.yaml", 22, 9),
			},
			{
				Rule: "ztp.hosts.unique-mac", Severity: Deny, Site: "sno2",
				Field:   "spec.nodes[0].bootMACAddress",
				Message: "boot MAC 52:54:00:aa:bb:01 is also used by host cnf-multi-worker-1 in sites/cnf-multi.yaml:48",
				Pos:     pos("sites/sno2.yaml", 30, 11),
			},
			{
				Rule: "ztp.hosts.unique-mac", Severity: Deny, Site: "cnf-multi",
				Field:   "spec.nodes[3].bootMACAddress",
				Message: "boot MAC 52:54:00:aa:bb:01 is also used by host sno2-master-0 in sites/sno2.yaml:30",
				Pos:     pos("sites/cnf-multi.yaml", 48, 11),
			},
			{
				Rule: "ztp.bmc.disable-certificate-verification", Severity: Warn, Site: "cnf-multi",
				Message: "BMC of host cnf-multi-worker-1 skips TLS certificate verification",
				Pos:     pos("sites/cnf-multi.yaml", 40, 7),
				Waived:  "lab BMCs use self-signed certificates until Q3",
			},
			{
				Rule: "ztp.installer-args.allowed", Severity: Deny, Site: "sno1",
				Message:     "installer argument --append-karg=rd.break is not in the allowed list",
				Remediation: "Drop --append-karg=rd.break or ask for it to be allowed.",
				Pos:         pos("sites/sno1.yaml", 18, 5),
				Waived:      "vendor-approved debug argument, ticket OPS-1234",
			},
		},
	}
	failOnWarn := mixed
	failOnWarn.Findings = slices.Clone(mixed.Findings)
	// Pull-request mode: what is left after Since, with the count of
	// findings the base revision has too.
	since := mixed
	since.Findings = slices.Clone(mixed.Findings[:3])
	since.Base, since.PreExisting = "origin/main", 3

	return []testCase{
		{name: "empty", report: Report{Sites: 3}, opts: []Option{WithRules(rules)}},
		{name: "mixed", report: mixed, opts: []Option{WithRules(rules), WithVersion("0.4.0")}},
		{name: "fail-on-warn", report: failOnWarn, opts: []Option{WithRules(rules), WithFailOnWarn(true)}},
		{name: "since-base", report: since, opts: []Option{WithRules(rules)}},
		{
			// Findings without a file, a line or a column, with or
			// without a site, and a user rule without metadata that says
			// two things at one place.
			name: "no-position",
			report: Report{Sites: 2, Findings: []Finding{
				{
					Rule: "ztp.fleet.deletion-budget", Severity: Deny,
					Message: "12 sites removed; the budget is 5 (10% of 50 sites); mark the commit with --allow-deletions 12",
				},
				{Rule: "ztp.site.load", Severity: Deny, Message: "yaml: line 3: mapping values are not allowed in this context", Pos: pos("sites/broken.yaml", 0, 0)},
				{Rule: "user.main.warn_labels", Severity: Warn, Site: "sno1", Message: "missing label team", Pos: pos("sites/sno1.yaml", 7, 0)},
				{Rule: "user.main.warn_labels", Severity: Warn, Site: "sno1", Message: "missing label owner", Pos: pos("sites/sno1.yaml", 7, 0)},
				{Rule: "ztp.change.immutable-field", Severity: Deny, Site: "sno9", Message: "sno9 is installed: spec.baseDomain must not change"},
			}},
			opts: []Option{WithRules(rules)},
		},
		{
			// Everything a format must escape: quotes, newlines, CR, <&>,
			// %, ',' and ':', '#', '\', control characters, a
			// bidirectional override and non-ASCII text, in messages,
			// reasons, rule ids, site and file names.
			name: "escaping",
			report: Report{Sites: 1, Findings: []Finding{
				{
					Rule: "user.main.deny_quotes", Severity: Deny, Site: "sno-ü",
					Message: `value "a<b>&c" isn't allowed: 100% sure, naïve ✓ 日本 </failure>]]>`,
					Pos:     pos("sites/a,b:c d.yaml", 3, 2),
				},
				{
					Rule: "user.main.deny_multiline", Severity: Deny, Site: "sno-ü",
					Message:     "first line\nsecond line # not a directive\n...\n::error::forged\n  - indented",
					Remediation: "run `siteops check`\nthen fix",
					Pos:         pos("sites/a,b:c d.yaml", 9, 1),
				},
				{
					Rule: "user.main.warn_control", Severity: Warn, Site: "sno-ü",
					Message: "CRLF\r\nhere; \x1b[31mred\x1b[0m; bidi \u202eevil; path C:\\dir\\x; %0A stays",
					Pos:     pos("sites/café.yaml", 4, 0),
				},
				{
					Rule: "user.main.warn_waived", Severity: Warn, Site: "sno-ü",
					Message: "waived # warning",
					Pos:     pos("sites/café.yaml", 5, 3),
					Waived:  "approved, see: OPS-1 #42 at 100%\nsecond line",
				},
			}},
		},
		{
			// Absolute file names: under the root they become relative in
			// the formats GitHub reads; outside it they stay absolute.
			name: "absolute-paths",
			report: Report{Sites: 2, Findings: []Finding{
				{Rule: "ztp.hosts.unique-mac", Severity: Deny, Site: "sno1", Message: "duplicate MAC", Pos: pos("/repo/sites/./sno1.yaml", 5, 3)},
				{Rule: "ztp.hosts.unique-mac", Severity: Deny, Site: "sno2", Message: "duplicate MAC", Pos: pos("/elsewhere/sno2.yaml", 6, 3)},
			}},
			opts: []Option{WithRules(rules), WithRoot("/repo")},
		},
	}
}

func testCaseNamed(t *testing.T, name string) testCase {
	t.Helper()
	for _, tc := range testCases() {
		if tc.name == name {
			return tc
		}
	}
	t.Fatalf("no test case %q", name)
	return testCase{}
}

// render writes r in a format and fails the test on an error.
func render(t *testing.T, format string, r *Report, opts ...Option) []byte {
	t.Helper()
	w, err := Get(format, opts...)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := w.Write(&b, r); err != nil {
		t.Fatalf("write %s: %v", format, err)
	}
	return b.Bytes()
}

// checkGolden compares got with testdata/<name>, or rewrites it with
// -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./policy/report -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run go test ./policy/report -update and review the diff)\n--- got\n%s\n--- want\n%s", file, got, want)
	}
}

// testGolden renders every test case in a format against its golden file
// and then runs check on the output.
func testGolden(t *testing.T, format string, check func(t *testing.T, tc testCase, out []byte)) {
	for _, tc := range testCases() {
		t.Run(tc.name, func(t *testing.T) {
			out := render(t, format, &tc.report, tc.opts...)
			checkGolden(t, tc.name+"."+format+".golden", out)
			if check != nil {
				check(t, tc, out)
			}
		})
	}
}

func TestGet(t *testing.T) {
	tests := []struct {
		name    string
		format  string
		wantErr string
	}{
		{name: "text", format: "text"},
		{name: "json", format: "json"},
		{name: "junit", format: "junit"},
		{name: "sarif", format: "sarif"},
		{name: "github", format: "github"},
		{name: "tap", format: "tap"},
		{name: "unknown", format: "yaml", wantErr: `unknown format "yaml": want one of text, json, junit, sarif, github, tap`},
		{name: "empty", format: "", wantErr: `unknown format ""`},
		{name: "case matters", format: "JSON", wantErr: `unknown format "JSON"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := Get(tt.format)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Get(%q) error = %v, want %q", tt.format, err, tt.wantErr)
				}
				return
			}
			if err != nil || w == nil {
				t.Fatalf("Get(%q) = %v, %v", tt.format, w, err)
			}
		})
	}
}

func TestFormats(t *testing.T) {
	want := []string{"text", "json", "junit", "sarif", "github", "tap"}
	if got := Formats(); !slices.Equal(got, want) {
		t.Fatalf("Formats() = %v, want %v", got, want)
	}
	// The slice is the caller's: changing it changes nothing here.
	Formats()[0] = "changed"
	if Formats()[0] != "text" {
		t.Fatal("Formats returns shared state")
	}
	for _, f := range Formats() {
		if _, err := Get(f); err != nil {
			t.Errorf("Get(%q): %v", f, err)
		}
	}
}

// TestStableOrder checks that every format prints the same bytes whatever
// the order of the findings, including findings that Report.Sort finds
// equal.
func TestStableOrder(t *testing.T) {
	for _, format := range Formats() {
		for _, tc := range testCases() {
			t.Run(format+"/"+tc.name, func(t *testing.T) {
				want := render(t, format, &tc.report, tc.opts...)
				rev := tc.report
				rev.Findings = slices.Clone(tc.report.Findings)
				slices.Reverse(rev.Findings)
				if got := render(t, format, &rev, tc.opts...); !bytes.Equal(got, want) {
					t.Errorf("reversed findings print differently:\n%s\nwant\n%s", got, want)
				}
			})
		}
	}
}

// TestWriteLeavesReport checks that writers sort and fill in a copy.
func TestWriteLeavesReport(t *testing.T) {
	for _, format := range Formats() {
		t.Run(format, func(t *testing.T) {
			tc := testCaseNamed(t, "mixed")
			before := slices.Clone(tc.report.Findings)
			render(t, format, &tc.report, tc.opts...)
			if !slices.EqualFunc(before, tc.report.Findings, func(a, b Finding) bool {
				return a.Rule == b.Rule && a.Site == b.Site && a.Pos == b.Pos && a.Remediation == b.Remediation && a.Reference == b.Reference
			}) {
				t.Error("Write changed the report's findings")
			}
		})
	}
}

func TestNilReport(t *testing.T) {
	for _, format := range Formats() {
		t.Run(format, func(t *testing.T) {
			got := render(t, format, nil)
			want := render(t, format, &Report{})
			if !bytes.Equal(got, want) {
				t.Errorf("nil report prints\n%s\nwant as an empty report\n%s", got, want)
			}
		})
	}
}

func TestInvalidFinding(t *testing.T) {
	tests := []struct {
		name    string
		finding Finding
		wantErr string
	}{
		{name: "no severity", finding: Finding{Rule: "b", Message: "bad"}, wantErr: `rule "b": unknown severity ""`},
		{name: "other severity", finding: Finding{Rule: "b", Severity: "error", Message: "bad"}, wantErr: `unknown severity "error"`},
		{name: "severity case", finding: Finding{Rule: "b", Severity: "DENY", Message: "bad"}, wantErr: `unknown severity "DENY"`},
		{name: "no rule", finding: Finding{Severity: Deny, Message: "bad"}, wantErr: `finding "bad": no rule`},
	}
	for _, format := range Formats() {
		for _, tt := range tests {
			t.Run(format+"/"+tt.name, func(t *testing.T) {
				w, err := Get(format)
				if err != nil {
					t.Fatal(err)
				}
				r := &Report{Sites: 1, Findings: []Finding{
					{Rule: "a", Severity: Deny, Message: "fine"},
					tt.finding,
				}}
				var b bytes.Buffer
				err = w.Write(&b, r)
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Write error = %v, want %q", err, tt.wantErr)
				}
				if b.Len() != 0 {
					t.Errorf("wrote %q before failing", b.String())
				}
			})
		}
	}
}

type failingWriter struct{}

var errWrite = errors.New("disk full")

func (failingWriter) Write([]byte) (int, error) { return 0, errWrite }

func TestWriteError(t *testing.T) {
	for _, format := range Formats() {
		t.Run(format, func(t *testing.T) {
			w, err := Get(format)
			if err != nil {
				t.Fatal(err)
			}
			tc := testCaseNamed(t, "mixed")
			if err := w.Write(failingWriter{}, &tc.report); !errors.Is(err, errWrite) {
				t.Fatalf("Write error = %v, want %v", err, errWrite)
			}
		})
	}
}

func TestRemediationFromRules(t *testing.T) {
	r := Report{Findings: []Finding{
		{Rule: "ztp.hosts.unique-mac", Severity: Deny, Message: "m"},
		{Rule: "ztp.installer-args.allowed", Severity: Deny, Message: "m", Remediation: "own", Reference: "own ref"},
		{Rule: "user.main.deny_x", Severity: Deny, Message: "m"},
	}}
	o := applyOptions([]Option{WithRules(rules)})
	got, err := o.prepare(&r)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{
		"ztp.hosts.unique-mac":       {"Correct the MAC address; a MAC belongs to one host of one site.", "openshift/installer pkg/asset/agent/agentconfig/agenthosts.go"},
		"ztp.installer-args.allowed": {"own", "own ref"},
		"user.main.deny_x":           {"", ""},
	}
	for _, f := range got.Findings {
		if w := want[f.Rule]; f.Remediation != w[0] || f.Reference != w[1] {
			t.Errorf("%s: remediation, reference = %q, %q; want %q, %q", f.Rule, f.Remediation, f.Reference, w[0], w[1])
		}
	}
}

func TestRelPath(t *testing.T) {
	tests := []struct {
		name, root, file, want, uri string
	}{
		{name: "relative", file: "sites/sno1.yaml", want: "sites/sno1.yaml", uri: "sites/sno1.yaml"},
		{name: "dot", file: "./sites/../sites/sno1.yaml", want: "sites/sno1.yaml", uri: "sites/sno1.yaml"},
		{name: "under root", root: "/repo", file: "/repo/sites/sno1.yaml", want: "sites/sno1.yaml", uri: "sites/sno1.yaml"},
		{name: "root with slash", root: "/repo/", file: "/repo/sno1.yaml", want: "sno1.yaml", uri: "sno1.yaml"},
		{name: "outside root", root: "/repo", file: "/repository/sno1.yaml", want: "/repository/sno1.yaml", uri: "file:///repository/sno1.yaml"},
		{name: "absolute without root", file: "/tmp/sno1.yaml", want: "/tmp/sno1.yaml", uri: "file:///tmp/sno1.yaml"},
		{name: "relative with root", root: "/repo", file: "sites/sno1.yaml", want: "sites/sno1.yaml", uri: "sites/sno1.yaml"},
		{name: "needs encoding", file: "sites/a b#c%d.yaml", want: "sites/a b#c%d.yaml", uri: "sites/a%20b%23c%25d.yaml"},
		{name: "colon in first segment", file: "a:b.yaml", want: "a:b.yaml", uri: "./a:b.yaml"},
		{name: "non-ASCII", file: "sites/café.yaml", want: "sites/café.yaml", uri: "sites/caf%C3%A9.yaml"},
		{name: "empty", file: "", want: "", uri: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := applyOptions([]Option{WithRoot(tt.root)})
			if got := o.relPath(tt.file); got != tt.want {
				t.Errorf("relPath(%q) = %q, want %q", tt.file, got, tt.want)
			}
			if got := o.fileURI(tt.file); got != tt.uri {
				t.Errorf("fileURI(%q) = %q, want %q", tt.file, got, tt.uri)
			}
		})
	}
}
