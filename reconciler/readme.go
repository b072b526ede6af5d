package reconciler

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/reconciler/source"
	"github.com/siteops/siteops/reconciler/status"
)

// The status README is the fleet at a glance, readable in any Git web UI:
// sites per phase, the problems that concern no site, then one table row
// per site linking to its document.

// readmeColumns are the columns of the fleet table.
var readmeColumns = []string{"site", "phase", "reason", "cluster", "hosts", "revision", "message"}

// maxMessage bounds a message in the table; the document has it whole.
const maxMessage = 160

// readmeRow is a site's row of the fleet table.
func readmeRow(doc *status.Document) string {
	name := cell(doc.Site)
	if file, ok := status.FileName(doc.Site); ok {
		name = fmt.Sprintf("[%s](%s)", cell(doc.Site), file)
	}
	phase := string(doc.Phase)
	if doc.Orphaned {
		phase += " (orphaned)"
	}
	msg := doc.Message
	if r := []rune(msg); len(r) > maxMessage {
		msg = string(r[:maxMessage-1]) + "…"
	}
	return fmt.Sprintf("| %s | %s | %s | %d%% | %d | %s | %s |\n", name, phase, cell(string(doc.Reason)), doc.Cluster.Percent,
		len(doc.Hosts), cell(source.ShortRevision(doc.Revision)), cell(msg))
}

// cell makes text safe in a Markdown table cell.
func cell(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "|", `\|`, "<", "&lt;", ">", "&gt;").Replace(s)
	return strings.TrimSpace(s)
}

// readme renders the status README from the rows as last encoded.
func (l *Loop) readme() []byte {
	var b bytes.Buffer
	if last, ok := l.out.files.Get(status.ReadmeFile); ok {
		b.Grow(len(last))
	}
	l.mu.RLock()
	problems := l.fleet.problems
	count := map[engine.Phase]int{}
	orphaned, attention := 0, 0
	for _, r := range l.ix.sites {
		count[r.phase]++
		if r.orphaned {
			orphaned++
		}
		if r.attention {
			attention++
		}
	}
	l.mu.RUnlock()

	b.WriteString("# Fleet status\n\n")
	// The fleet's newest revision is not written here: a commit that
	// touches no site would then change this file and cost a status
	// commit. Each row names the revision its site reflects.
	b.WriteString("Written by siteops: one document per site (`<site>.yaml`), described in docs/status.md.\n\n")
	b.WriteString("| phase | sites |\n| --- | ---: |\n")
	for _, p := range engine.Phases() {
		if count[p] > 0 {
			fmt.Fprintf(&b, "| %s | %d |\n", p, count[p])
		}
	}
	if orphaned > 0 {
		fmt.Fprintf(&b, "| orphaned | %d |\n", orphaned)
	}
	if attention > 0 {
		fmt.Fprintf(&b, "| needs attention | %d |\n", attention)
	}
	if len(problems) > 0 {
		b.WriteString("\n## Problems that concern no site\n\n")
		b.WriteString("| where | rule | message |\n| --- | --- | --- |\n")
		for _, f := range problems {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", cell(f.Pos.String()), cell(f.Rule), cell(f.Message))
		}
	}
	b.WriteString("\n## Sites\n\n| " + strings.Join(readmeColumns, " | ") + " |\n|")
	for range readmeColumns {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	for _, name := range l.out.sites {
		b.WriteString(l.out.rows[name])
	}
	return b.Bytes()
}
