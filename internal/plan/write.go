package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/siteops/siteops/internal/termtext"
	"github.com/siteops/siteops/policy/report"
)

// Format is how a plan is written.
type Format string

// The formats of `siteops plan -o`.
const (
	FormatText     Format = "text"
	FormatMarkdown Format = "markdown"
	FormatJSON     Format = "json"
)

// Formats lists the formats.
func Formats() []Format { return []Format{FormatText, FormatMarkdown, FormatJSON} }

// maxFieldsShown bounds the field rows a site shows in text and
// Markdown (a pull-request comment holds 65,536 characters); JSON has
// them all.
const maxFieldsShown = 40

// Write writes p in format f.
func Write(w io.Writer, p *Plan, f Format) error {
	switch f {
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	case FormatMarkdown:
		return writeMarkdown(w, p)
	case FormatText:
		return writeText(w, p)
	}
	return fmt.Errorf("unknown format %q: use text, markdown or json", f)
}

// Summary is the plan in one line.
func (p *Plan) Summary() string {
	return fmt.Sprintf("%d added, %d removed, %d changed, %d broken; %d unchanged",
		p.Count(Added), p.Count(Removed), p.Count(Changed), p.Count(Broken), p.Unchanged)
}

var textMark = map[Change]string{Added: "+", Removed: "-", Changed: "~", Broken: "!"}

func writeText(w io.Writer, p *Plan) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "Plan: %s -> %s: %s\n", termtext.OneLine(p.Base), termtext.OneLine(p.Head), p.Summary())
	for _, s := range p.Sites {
		fmt.Fprintf(b, "\n%s site %s (%s): %s\n", textMark[s.Change], termtext.OneLine(s.Site), s.Source, s.Change)
		for _, f := range s.Findings {
			fmt.Fprintf(b, "    %s %s: %s\n", findingLabel(f), f.Rule, termtext.OneLine(f.Message))
		}
		for _, pr := range s.Problems {
			fmt.Fprintf(b, "    error %s\n", termtext.OneLine(pr.Error()))
		}
		shown := 0
		for _, o := range s.Objects {
			fmt.Fprintf(b, "    %s %s\n", textMark[o.Change], termtext.OneLine(o.Ref))
			for _, fc := range o.Fields {
				if shown++; shown > maxFieldsShown {
					continue
				}
				fmt.Fprintf(b, "        %s: %s\n", termtext.OneLine(fc.Path), textValues(fc))
			}
		}
		if shown > maxFieldsShown {
			fmt.Fprintf(b, "    … %d more fields (-o json lists them all)\n", shown-maxFieldsShown)
		}
	}
	for _, pr := range p.Problems {
		fmt.Fprintf(b, "\nerror %s\n", termtext.OneLine(pr.Error()))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func textValues(fc FieldChange) string {
	switch {
	case fc.Old == "":
		return "added " + termtext.OneLine(fc.New)
	case fc.New == "":
		return "removed (was " + termtext.OneLine(fc.Old) + ")"
	}
	return termtext.OneLine(fc.Old) + " -> " + termtext.OneLine(fc.New)
}

func findingLabel(f report.Finding) string {
	if f.Waived != "" {
		return string(f.Severity) + " (waived: " + termtext.OneLine(f.Waived) + ")"
	}
	return string(f.Severity)
}

// md escapes text from the repository for Markdown: it can neither
// format the comment nor carry HTML, and stays in its table cell.
func md(s string) string {
	var b strings.Builder
	for _, r := range termtext.OneLine(s) {
		switch {
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '&':
			b.WriteString("&amp;")
		case strings.ContainsRune("\\`*_[]|~", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

var mdMark = map[Change]string{Added: "➕", Removed: "➖", Changed: "✏️", Broken: "❌"}

func writeMarkdown(w io.Writer, p *Plan) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "### siteops plan: %s → %s\n\n", md(p.Base), md(p.Head))
	fmt.Fprintf(b, "**%d added · %d removed · %d changed · %d broken** (%d unchanged)\n",
		p.Count(Added), p.Count(Removed), p.Count(Changed), p.Count(Broken), p.Unchanged)
	if len(p.Sites) == 0 {
		b.WriteString("\nNo site changes.\n")
	} else {
		b.WriteString("\n| | Site | Change | Objects | Change findings |\n| --- | --- | --- | --- | --- |\n")
		for _, s := range p.Sites {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", mdMark[s.Change], md(s.Site), s.Change, objectCounts(s), findingCounts(s))
		}
	}
	for _, s := range p.Sites {
		fmt.Fprintf(b, "\n<details><summary>%s %s: %s</summary>\n\n", mdMark[s.Change], md(s.Site), s.Change)
		fmt.Fprintf(b, "Defined at %s.\n", md(s.Source.String()))
		for _, f := range s.Findings {
			fmt.Fprintf(b, "\n> **%s** %s: %s\n", md(findingLabel(f)), md(f.Rule), md(f.Message))
		}
		for _, pr := range s.Problems {
			fmt.Fprintf(b, "\n> **error** %s\n", md(pr.Error()))
		}
		if len(s.Objects) > 0 {
			b.WriteString("\n| Object | Field | Before | After |\n| --- | --- | --- | --- |\n")
			shown := 0
			for _, o := range s.Objects {
				if len(o.Fields) == 0 {
					fmt.Fprintf(b, "| %s %s | | | |\n", mdMark[o.Change], md(o.Ref))
					continue
				}
				for i, fc := range o.Fields {
					if shown++; shown > maxFieldsShown {
						continue
					}
					ref := ""
					if i == 0 {
						ref = mdMark[o.Change] + " " + md(o.Ref)
					}
					fmt.Fprintf(b, "| %s | %s | %s | %s |\n", ref, md(fc.Path), md(fc.Old), md(fc.New))
				}
			}
			if shown > maxFieldsShown {
				fmt.Fprintf(b, "\n%d more fields: `siteops plan -o json` lists them all.\n", shown-maxFieldsShown)
			}
		}
		b.WriteString("\n</details>\n")
	}
	for _, pr := range p.Problems {
		fmt.Fprintf(b, "\n> **error** %s\n", md(pr.Error()))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func objectCounts(s SitePlan) string {
	n := map[Change]int{}
	for _, o := range s.Objects {
		n[o.Change]++
	}
	var parts []string
	for _, c := range []Change{Added, Removed, Changed} {
		if n[c] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[c], c))
		}
	}
	return strings.Join(parts, ", ")
}

func findingCounts(s SitePlan) string {
	if len(s.Findings) == 0 {
		return ""
	}
	n := map[report.Severity]int{}
	for _, f := range s.Findings {
		n[f.Severity]++
	}
	var parts []string
	for _, sev := range []report.Severity{report.Deny, report.Warn} {
		if n[sev] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[sev], sev))
		}
	}
	return strings.Join(parts, ", ")
}
