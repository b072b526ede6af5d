package report

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// sarifDoc is the part of SARIF that GitHub code scanning reads,
// declared apart from the writer's types.
type sarifDoc struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name    string `json:"name"`
				Version string `json:"version"`
				Rules   []struct {
					ID               string                  `json:"id"`
					ShortDescription struct{ Text string }   `json:"shortDescription"`
					FullDescription  struct{ Text string }   `json:"fullDescription"`
					Help             struct{ Text string }   `json:"help"`
					HelpURI          string                  `json:"helpUri"`
					Default          *struct{ Level string } `json:"defaultConfiguration"`
					Properties       map[string]string       `json:"properties"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Invocations []struct {
			ExecutionSuccessful bool `json:"executionSuccessful"`
			ExitCode            int  `json:"exitCode"`
			Notifications       []struct {
				Level   string                `json:"level"`
				Message struct{ Text string } `json:"message"`
				Rule    struct {
					ID    string `json:"id"`
					Index int    `json:"index"`
				} `json:"associatedRule"`
			} `json:"toolExecutionNotifications"`
		} `json:"invocations"`
		Results []struct {
			RuleID    string                `json:"ruleId"`
			RuleIndex int                   `json:"ruleIndex"`
			Level     string                `json:"level"`
			Message   struct{ Text string } `json:"message"`
			Locations []struct {
				Physical struct {
					Artifact struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
					Region *struct {
						StartLine   *int `json:"startLine"`
						StartColumn *int `json:"startColumn"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			Suppressions []struct {
				Kind          string `json:"kind"`
				Status        string `json:"status"`
				Justification string `json:"justification"`
			} `json:"suppressions"`
			Properties map[string]any `json:"properties"`
		} `json:"results"`
	} `json:"runs"`
}

func parseSARIF(t *testing.T, out []byte) sarifDoc {
	t.Helper()
	var doc sarifDoc
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if doc.Schema != "https://json.schemastore.org/sarif-2.1.0.json" || doc.Version != "2.1.0" {
		t.Errorf("$schema %q, version %q", doc.Schema, doc.Version)
	}
	if len(doc.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(doc.Runs))
	}
	return doc
}

func TestSARIFGolden(t *testing.T) {
	testGolden(t, FormatSARIF, func(t *testing.T, tc testCase, out []byte) {
		doc := parseSARIF(t, out)
		run := doc.Runs[0]
		if run.Tool.Driver.Name != "siteops" {
			t.Errorf("driver name %q", run.Tool.Driver.Name)
		}
		if run.Results == nil {
			t.Error("results is missing; GitHub wants an empty array")
		}
		rules := run.Tool.Driver.Rules
		for i := 1; i < len(rules); i++ {
			if rules[i-1].ID >= rules[i].ID {
				t.Errorf("rules not sorted or not unique: %q, %q", rules[i-1].ID, rules[i].ID)
			}
		}
		for _, r := range rules {
			if r.ShortDescription.Text == "" || r.FullDescription.Text == "" || r.Help.Text == "" {
				t.Errorf("rule %s has an empty description or help", r.ID)
			}
		}
		// What GitHub code scanning requires of each result.
		for _, res := range run.Results {
			if res.RuleIndex < 0 || res.RuleIndex >= len(rules) || rules[res.RuleIndex].ID != res.RuleID {
				t.Errorf("result %s: ruleIndex %d does not name its rule", res.RuleID, res.RuleIndex)
			}
			if len(res.Locations) != 1 {
				t.Fatalf("result %s: %d locations, want 1", res.RuleID, len(res.Locations))
			}
			loc := res.Locations[0].Physical
			u, err := url.Parse(loc.Artifact.URI)
			if err != nil || loc.Artifact.URI == "" {
				t.Errorf("result %s: uri %q: %v", res.RuleID, loc.Artifact.URI, err)
			}
			if tc.name != "absolute-paths" && (u.IsAbs() || strings.HasPrefix(u.Path, "/") || strings.Contains(loc.Artifact.URI, `\`)) {
				t.Errorf("result %s: uri %q is not relative with slashes", res.RuleID, loc.Artifact.URI)
			}
			if reg := loc.Region; reg != nil {
				if reg.StartLine == nil || *reg.StartLine < 1 {
					t.Errorf("result %s: region without a startLine ≥ 1", res.RuleID)
				}
				if reg.StartColumn != nil && *reg.StartColumn < 1 {
					t.Errorf("result %s: startColumn %d", res.RuleID, *reg.StartColumn)
				}
			}
			switch res.Level {
			case "error", "warning":
				if len(res.Suppressions) != 0 {
					t.Errorf("result %s: level %s with a suppression", res.RuleID, res.Level)
				}
			case "note":
				if len(res.Suppressions) != 1 || res.Suppressions[0].Justification == "" {
					t.Errorf("result %s: note without a justified suppression", res.RuleID)
				}
			default:
				t.Errorf("result %s: level %q", res.RuleID, res.Level)
			}
		}
		// Every finding is a result or, without a file, a notification.
		inv := run.Invocations[0]
		if got := len(run.Results) + len(inv.Notifications); got != len(tc.report.Findings) {
			t.Errorf("%d results and notifications, want %d findings", got, len(tc.report.Findings))
		}
		failOnWarn := tc.name == "fail-on-warn"
		if !inv.ExecutionSuccessful || inv.ExitCode != tc.report.ExitCode(failOnWarn) {
			t.Errorf("invocation %+v, want successful with exit code %d", inv, tc.report.ExitCode(failOnWarn))
		}
	})
}

func TestSARIF(t *testing.T) {
	t.Run("rules from metadata and findings", func(t *testing.T) {
		r := &Report{Findings: []Finding{
			{Rule: "user.main.deny_x", Severity: Deny, Message: "m", Pos: pos("a.yaml", 1, 1)},
		}}
		doc := parseSARIF(t, render(t, FormatSARIF, r, WithRules(rules)))
		byID := map[string]int{}
		for i, rule := range doc.Runs[0].Tool.Driver.Rules {
			byID[rule.ID] = i
		}
		if len(byID) != len(rules)+1 {
			t.Fatalf("%d rules, want the %d given and the user rule", len(byID), len(rules))
		}
		all := doc.Runs[0].Tool.Driver.Rules
		vip := all[byID["ztp.network.vip-in-machine-network"]]
		if vip.ShortDescription.Text != rules[0].Title || vip.Help.Text != rules[0].Remediation ||
			vip.HelpURI != rules[0].Reference || vip.Properties["reference"] != rules[0].Reference ||
			vip.Default == nil || vip.Default.Level != "error" {
			t.Errorf("descriptor %+v does not carry the metadata %+v", vip, rules[0])
		}
		bmc := all[byID["ztp.bmc.disable-certificate-verification"]]
		if bmc.HelpURI != "" || bmc.Properties["reference"] != "stolostron/siteconfig internal/templates/assisted-installer/template.go" || bmc.Default.Level != "warning" {
			t.Errorf("a reference that is not a URL must not be a helpUri: %+v", bmc)
		}
		user := all[byID["user.main.deny_x"]]
		if user.ShortDescription.Text != "user.main.deny_x" || user.Help.Text != "user.main.deny_x" || user.Default != nil {
			t.Errorf("rule without metadata: %+v", user)
		}
	})

	t.Run("waived is a note with an accepted suppression", func(t *testing.T) {
		r := &Report{Findings: []Finding{
			{Rule: "r", Severity: Deny, Message: "m", Pos: pos("a.yaml", 2, 0), Waived: "lab only"},
		}}
		res := parseSARIF(t, render(t, FormatSARIF, r)).Runs[0].Results[0]
		if res.Level != "note" || len(res.Suppressions) != 1 {
			t.Fatalf("result %+v", res)
		}
		if s := res.Suppressions[0]; s.Kind != "inSource" || s.Status != "accepted" || s.Justification != "lab only" {
			t.Errorf("suppression %+v", s)
		}
		reg := res.Locations[0].Physical.Region
		if reg == nil || *reg.StartLine != 2 || reg.StartColumn != nil {
			t.Errorf("region %+v, want line 2 without a column", reg)
		}
	})

	t.Run("region left out without a line", func(t *testing.T) {
		r := &Report{Findings: []Finding{{Rule: "r", Severity: Warn, Message: "m", Pos: pos("a.yaml", 0, 5)}}}
		res := parseSARIF(t, render(t, FormatSARIF, r)).Runs[0].Results[0]
		if res.Level != "warning" || res.Locations[0].Physical.Region != nil || res.Locations[0].Physical.Artifact.URI != "a.yaml" {
			t.Errorf("result %+v", res)
		}
	})

	t.Run("no file is a notification", func(t *testing.T) {
		r := &Report{Findings: []Finding{{Rule: "r", Severity: Deny, Message: "fleet-wide"}}}
		run := parseSARIF(t, render(t, FormatSARIF, r)).Runs[0]
		if len(run.Results) != 0 {
			t.Fatalf("results %+v, want none", run.Results)
		}
		n := run.Invocations[0].Notifications
		if len(n) != 1 || n[0].Level != "error" || n[0].Message.Text != "r: fleet-wide" || n[0].Rule.ID != "r" || n[0].Rule.Index != 0 {
			t.Errorf("notifications %+v", n)
		}
	})

	t.Run("no absolute path under the root", func(t *testing.T) {
		r := &Report{Findings: []Finding{{Rule: "r", Severity: Deny, Message: "m", Pos: pos("/work/repo/sites/a b.yaml", 1, 1)}}}
		res := parseSARIF(t, render(t, FormatSARIF, r, WithRoot("/work/repo"))).Runs[0].Results[0]
		if uri := res.Locations[0].Physical.Artifact.URI; uri != "sites/a%20b.yaml" {
			t.Errorf("uri %q", uri)
		}
	})

	t.Run("user policy source relative to the root", func(t *testing.T) {
		user := []Rule{{ID: "main.deny_x", Severity: Deny, Source: "/repo/policies/x.rego"}}
		doc := parseSARIF(t, render(t, FormatSARIF, &Report{}, WithRules(user), WithRoot("/repo")))
		if src := doc.Runs[0].Tool.Driver.Rules[0].Properties["source"]; src != "policies/x.rego" {
			t.Errorf("source %q", src)
		}
	})

	t.Run("version", func(t *testing.T) {
		doc := parseSARIF(t, render(t, FormatSARIF, &Report{}, WithVersion("1.2.3")))
		if v := doc.Runs[0].Tool.Driver.Version; v != "1.2.3" {
			t.Errorf("driver version %q", v)
		}
	})
}
