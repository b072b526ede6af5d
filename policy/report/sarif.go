package report

import (
	"cmp"
	"encoding/json"
	"io"
	"net/url"
	"strconv"
)

// sarifWriter prints SARIF 2.1.0 for GitHub code scanning
// (github/codeql-action/upload-sarif) and SARIF viewers. One run, tool
// "siteops", whose driver lists every rule given with WithRules (and a
// bare descriptor for any other rule that produced a finding) with its
// title, remediation and reference. Each finding is a result:
//
//   - level error for deny, warning for warn, note for a waived finding;
//   - a waived result also carries a suppression of kind "inSource" with
//     status "accepted" and the reason as justification: the waiver is the
//     siteops.io/waive annotation in the site file, which is what SARIF
//     calls in source ("external" is for suppression files and databases).
//     GitHub does not act on suppressions, which is why the level is note
//     rather than the rule's;
//   - one location with the file as a relative URI (see WithRoot) and a
//     region only when the line is known, since GitHub rejects a
//     startLine below 1.
//
// GitHub rejects a whole file when one result has no location, so a
// finding without a file is not a result: it is written as a
// notification of the run's invocation, with its rule and level, which
// SARIF allows without a location. The invocation's exitCode is the
// check's (with WithFailOnWarn if given).
type sarifWriter struct{ *options }

const sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
	Properties  map[string]string `json:"properties,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name    string      `json:"name"`
	Version string      `json:"version,omitempty"`
	Rules   []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string            `json:"id"`
	ShortDescription     sarifText         `json:"shortDescription"`
	FullDescription      sarifText         `json:"fullDescription"`
	Help                 sarifText         `json:"help"`
	HelpURI              string            `json:"helpUri,omitempty"`
	DefaultConfiguration *sarifConfig      `json:"defaultConfiguration,omitempty"`
	Properties           map[string]string `json:"properties,omitempty"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	ExitCode            int                 `json:"exitCode"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level          string         `json:"level"`
	Message        sarifText      `json:"message"`
	AssociatedRule sarifRuleRef   `json:"associatedRule"`
	Properties     map[string]any `json:"properties,omitempty"`
}

type sarifRuleRef struct {
	ID    string `json:"id"`
	Index int    `json:"index"`
}

type sarifResult struct {
	RuleID       string             `json:"ruleId"`
	RuleIndex    int                `json:"ruleIndex"`
	Level        string             `json:"level"`
	Message      sarifText          `json:"message"`
	Locations    []sarifLocation    `json:"locations"`
	Suppressions []sarifSuppression `json:"suppressions,omitempty"`
	Properties   map[string]any     `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Status        string `json:"status"`
	Justification string `json:"justification"`
}

func (s *sarifWriter) Write(w io.Writer, r *Report) error {
	r, err := s.prepare(r)
	if err != nil {
		return err
	}
	rules, index := s.rules(r)
	inv := sarifInvocation{ExecutionSuccessful: true, ExitCode: r.ExitCode(s.failOnWarn)}
	results := []sarifResult{}
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.Pos.File == "" {
			inv.Notifications = append(inv.Notifications, sarifNotification{
				Level:          sarifLevel(f),
				Message:        sarifText{f.Rule + ": " + f.Message},
				AssociatedRule: sarifRuleRef{ID: f.Rule, Index: index[f.Rule]},
				Properties:     s.properties(f),
			})
			continue
		}
		res := sarifResult{
			RuleID:     f.Rule,
			RuleIndex:  index[f.Rule],
			Level:      sarifLevel(f),
			Message:    sarifText{f.Message},
			Locations:  []sarifLocation{s.location(f)},
			Properties: s.properties(f),
		}
		if f.Waived != "" {
			res.Suppressions = []sarifSuppression{{Kind: "inSource", Status: "accepted", Justification: f.Waived}}
		}
		results = append(results, res)
	}
	log := sarifLog{
		Schema:  sarifSchema,
		Version: "2.1.0",
		Runs: []sarifRun{{
			Tool:        sarifTool{sarifDriver{Name: "siteops", Version: s.version, Rules: rules}},
			Invocations: []sarifInvocation{inv},
			Results:     results,
		}},
	}
	props := map[string]string{}
	if r.Revision != "" {
		props["revision"] = r.Revision
	}
	if r.Base != "" {
		// Pull-request mode: the results are those new since base.
		props["base"], props["preExisting"] = r.Base, strconv.Itoa(r.PreExisting)
	}
	if len(props) > 0 {
		log.Runs[0].Properties = props
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// rules returns the rule descriptors sorted by id, and each id's index.
// GitHub shows shortDescription and fullDescription at the top of an
// alert and help below it, so each falls back to something rather than
// being empty.
func (s *sarifWriter) rules(r *Report) ([]sarifRule, map[string]int) {
	meta := make(map[string]Rule, len(s.options.rules))
	for id, rule := range s.options.rules {
		meta[id] = rule
	}
	for _, f := range r.Findings {
		if _, ok := meta[f.Rule]; !ok {
			meta[f.Rule] = Rule{ID: f.Rule}
		}
	}
	ids := sortedKeys(meta)
	rules := make([]sarifRule, 0, len(ids))
	index := make(map[string]int, len(ids))
	for i, id := range ids {
		m := meta[id]
		title := cmp.Or(m.Title, id)
		d := sarifRule{
			ID:               id,
			ShortDescription: sarifText{title},
			FullDescription:  sarifText{title},
			Help:             sarifText{cmp.Or(m.Remediation, title)},
		}
		if m.Severity == Deny || m.Severity == Warn || m.Severity == Info {
			d.DefaultConfiguration = &sarifConfig{sarifSeverityLevel(m.Severity)}
		}
		if m.Reference != "" || m.Source != "" {
			d.Properties = map[string]string{}
			if m.Reference != "" {
				d.Properties["reference"] = m.Reference
			}
			if m.Source != "" {
				// A user rule's source is its policy file, which
				// should not name a path on the CI machine.
				d.Properties["source"] = s.relPath(m.Source)
			}
		}
		if isWebURL(m.Reference) {
			d.HelpURI = m.Reference
		}
		rules = append(rules, d)
		index[id] = i
	}
	return rules, index
}

func (s *sarifWriter) location(f *Finding) sarifLocation {
	loc := sarifLocation{sarifPhysicalLocation{ArtifactLocation: sarifArtifactLocation{s.fileURI(f.Pos.File)}}}
	if f.Pos.Line >= 1 {
		loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Pos.Line}
		if f.Pos.Column >= 1 {
			loc.PhysicalLocation.Region.StartColumn = f.Pos.Column
		}
	}
	return loc
}

// properties keeps what SARIF has no field for, so that the log holds
// everything the JSON format does. A remediation or reference that is
// the rule's is left to the rule's descriptor.
func (s *sarifWriter) properties(f *Finding) map[string]any {
	rule := s.options.rules[f.Rule]
	p := map[string]any{}
	if f.Site != "" {
		p["site"] = f.Site
	}
	if f.Field != "" {
		p["field"] = f.Field
	}
	if f.Object != nil {
		p["object"] = f.Object
	}
	if f.Remediation != "" && f.Remediation != rule.Remediation {
		p["remediation"] = f.Remediation
	}
	if f.Reference != "" && f.Reference != rule.Reference {
		p["reference"] = f.Reference
	}
	if len(p) == 0 {
		return nil
	}
	return p
}

func sarifLevel(f *Finding) string {
	if f.Waived != "" {
		return "note"
	}
	return sarifSeverityLevel(f.Severity)
}

func sarifSeverityLevel(s Severity) string {
	switch s {
	case Deny:
		return "error"
	case Info:
		return "note"
	}
	return "warning"
}

// isWebURL reports whether a reference can be a helpUri: references are
// also document sections and installer validation ids.
func isWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}
