package policy

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// rulesDoc writes docs/rules.md from the metadata of the built-in rules:
// the engine's own, then the library's, each group by id.
func rulesDoc(rules []ruleInfo) []byte {
	var engine, library []ruleInfo
	for _, r := range rules {
		switch {
		case r.user:
		case r.file == "":
			engine = append(engine, r)
		default:
			library = append(library, r)
		}
	}
	byID := func(a, b ruleInfo) int { return strings.Compare(a.ID, b.ID) }
	slices.SortFunc(engine, byID)
	slices.SortFunc(library, byID)

	var b bytes.Buffer
	b.WriteString(`# Built-in rules

<!-- Generated from the rules' metadata by ` + "`go test ./policy -run TestRulesDoc -update`" + `; do not edit. -->

Every rule has an id (what findings, waivers and ` + "`--list-rules`" + ` name), a
severity (deny fails the check; warn is reported, and fails it only with
` + "`--fail-on-warn`" + `; info is a note that never fails, for what every site
inherits from the upstream templates), what to do about it, and where the rule comes from: the
upstream project and file whose behaviour it checks ahead of time, or the page
of these docs that describes it. How rules are written, their input and how to
waive one are in [policy.md](policy.md).

| id | severity | title |
| --- | --- | --- |
`)
	for _, group := range [][]ruleInfo{library, engine} {
		for _, r := range group {
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.ID, r.Severity, r.Title)
		}
	}
	write := func(title, intro string, rules []ruleInfo) {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", title, intro)
		for _, r := range rules {
			fmt.Fprintf(&b, "\n### `%s`\n\n**%s** (%s", r.ID, r.Title, r.Severity)
			if r.file != "" {
				fmt.Fprintf(&b, ", `%s`", r.file)
			}
			b.WriteString(")\n\n")
			if r.Description != "" {
				b.WriteString(mdEscape(r.Description) + "\n\n")
			}
			fmt.Fprintf(&b, "Fix: %s\n\nReference: %s\n", mdEscape(r.Remediation), mdEscape(r.Reference))
		}
	}
	write("Rule library", "The Rego rules in `policy/rules/`, one file per rule.", library)
	write("Engine rules", "Findings the engine makes itself, around the evaluation of the library.", engine)
	return b.Bytes()
}

// mdEscape keeps text that reads well on a terminal from turning into
// HTML in Markdown: "<" would start a tag.
func mdEscape(s string) string { return strings.ReplaceAll(s, "<", "&lt;") }
