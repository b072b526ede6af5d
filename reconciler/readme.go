package reconciler

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"net/url"
	"slices"
	"strings"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/internal/redact"
	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/reconciler/source"
	"github.com/siteops/siteops/reconciler/status"
)

// The status README is the fleet at a glance, readable in any Git web UI:
// sites per phase, the problems that concern no site, then one table row
// per site linking to its document. A large fleet's table would be
// megabytes that no web UI renders and every status commit rewrites: past
// readmePagedAbove sites the README keeps the counts, the problems and the
// sites that need a person, and links to readmePages pages of rows. A site
// is on the page its name hashes to, so a one-site change rewrites one
// small page, and the README only when what it counts changes.

// The layout of the status README and its pages: one table.
const (
	// readmePagedAbove is the number of sites above which the rows are
	// on pages rather than in the README itself.
	readmePagedAbove = 1000
	// readmePages is the number of pages: fixed, so that a site's page
	// never moves as the fleet grows or shrinks.
	readmePages = 100
	// readmePagesDir holds the pages, in the status directory.
	readmePagesDir = "pages"
	// maxAttentionListed bounds the sites that need a person listed in a
	// paged README; the pages have the others.
	maxAttentionListed = 50
	// maxMessage bounds a message in the table; the document has it whole.
	maxMessage = 160
)

// readmeColumns are the columns of the fleet table.
var readmeColumns = []string{"site", "phase", "reason", "cluster", "hosts", "revision", "message"}

// readmeRow is a site's row of the fleet table, its site cell apart: the
// README links a document as <site>.yaml, a page as ../<site>.yaml.
type readmeRow struct {
	// name is the site cell's text; cells the rest of the row, from the
	// separator after the site cell to the end of the line.
	name, cells string
	// attention is set when a person should look at the site.
	attention bool
}

// newReadmeRow makes the row of a document, credentials hidden.
func newReadmeRow(doc *status.Document) readmeRow {
	phase := string(doc.Phase)
	if doc.Orphaned {
		phase += " (orphaned)"
	}
	// Credentials are hidden before a value is cut or escaped: either
	// changes the text a registered value would be found as. The other
	// cells are the engine's words and a commit id.
	msg := redact.Text(doc.Message)
	if r := []rune(msg); len(r) > maxMessage {
		msg = string(r[:maxMessage-1]) + "…"
	}
	return readmeRow{
		name: cell(redact.Text(doc.Site)),
		cells: fmt.Sprintf(" | %s | %s | %d%% | %d | %s | %s |\n", phase, cell(string(doc.Reason)),
			doc.Cluster.Percent, len(doc.Hosts), cell(source.ShortRevision(doc.Revision)), cell(msg)),
		attention: status.NeedsAttention(doc),
	}
}

// writeTo writes the row of site, linking its document from dir ("" or
// "../").
func (r readmeRow) writeTo(b *bytes.Buffer, site, dir string) {
	b.WriteString("| ")
	if file, ok := status.FileName(site); ok {
		// The target is escaped: a site name may hold "|", which ends a
		// table cell, or ")", which ends the link.
		fmt.Fprintf(b, "[%s](%s%s)", r.name, dir, url.PathEscape(file))
	} else {
		b.WriteString(r.name)
	}
	b.WriteString(r.cells)
}

// cell makes text safe in a Markdown table cell.
func cell(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "|", `\|`, "<", "&lt;", ">", "&gt;").Replace(s)
	return strings.TrimSpace(s)
}

// readmePage is the page of a site: FNV-1a of its name, modulo the
// number of pages.
func readmePage(site string) int {
	h := fnv.New32a()
	h.Write([]byte(site))
	return int(h.Sum32() % readmePages)
}

// readmePageFile is the path of page i in the status directory.
func readmePageFile(i int) string {
	return fmt.Sprintf("%s/%02d.md", readmePagesDir, i)
}

// fleetTable is the fleet table as last written: a row per site, sorted,
// and the sites of each page. It writes the README and the pages that
// changed since its last write. Only the Run goroutine uses it.
type fleetTable struct {
	rows map[string]readmeRow
	// sites are the names of rows, sorted; pages the same by page.
	sites []string
	pages [readmePages][]string
	// attention are the sites that need a person, sorted; attentionOn
	// counts them by page.
	attention   []string
	attentionOn [readmePages]int
	// dirty marks the pages changed since the last write; paged is set
	// while the status directory holds the pages.
	dirty [readmePages]bool
	paged bool
}

func newFleetTable() *fleetTable { return &fleetTable{rows: map[string]readmeRow{}} }

// has reports whether the site has a row.
func (t *fleetTable) has(site string) bool {
	_, ok := t.rows[site]
	return ok
}

// set makes row the site's row.
func (t *fleetTable) set(site string, row readmeRow) {
	old, had := t.rows[site]
	page := readmePage(site)
	if !had {
		t.sites = insertSorted(t.sites, site)
		t.pages[page] = insertSorted(t.pages[page], site)
	}
	if old.attention != row.attention || !had {
		t.markAttention(site, page, had && old.attention, row.attention)
	}
	t.rows[site] = row
	t.dirty[page] = true
}

// drop removes the site's row.
func (t *fleetTable) drop(site string) {
	old, ok := t.rows[site]
	if !ok {
		return
	}
	page := readmePage(site)
	t.markAttention(site, page, old.attention, false)
	delete(t.rows, site)
	t.sites = deleteSorted(t.sites, site)
	t.pages[page] = deleteSorted(t.pages[page], site)
	t.dirty[page] = true
}

// markAttention moves site in or out of the sites that need a person.
func (t *fleetTable) markAttention(site string, page int, was, is bool) {
	switch {
	case is && !was:
		t.attention = insertSorted(t.attention, site)
		t.attentionOn[page]++
	case was && !is:
		t.attention = deleteSorted(t.attention, site)
		t.attentionOn[page]--
	}
}

func insertSorted(s []string, v string) []string {
	if i, ok := slices.BinarySearch(s, v); !ok {
		s = slices.Insert(s, i, v)
	}
	return s
}

func deleteSorted(s []string, v string) []string {
	if i, ok := slices.BinarySearch(s, v); ok {
		s = slices.Delete(s, i, i+1)
	}
	return s
}

// fleetSummary is what the README counts and lists besides the rows.
type fleetSummary struct {
	phases              map[engine.Phase]int
	orphaned, attention int
	problems            []report.Finding
}

// write brings the README and the pages in files up to the table, and
// reports whether any of them changed.
func (t *fleetTable) write(files *source.StatusFiles, sum fleetSummary) bool {
	changed := false
	if len(t.sites) <= readmePagedAbove {
		if t.paged {
			for i := range readmePages {
				changed = files.Delete(readmePageFile(i)) || changed
			}
			t.paged = false
		}
		return files.Set(status.ReadmeFile, t.readme(sum)) || changed
	}
	for i := range readmePages {
		if t.dirty[i] || !t.paged {
			changed = files.Set(readmePageFile(i), t.page(i)) || changed
			t.dirty[i] = false
		}
	}
	t.paged = true
	return files.Set(status.ReadmeFile, t.readme(sum)) || changed
}

// readme renders the README: every row when the fleet is small, else the
// sites that need a person and links to the pages.
func (t *fleetTable) readme(sum fleetSummary) []byte {
	var b bytes.Buffer
	paged := len(t.sites) > readmePagedAbove
	if paged {
		b.Grow(4096 + 200*min(len(t.attention), maxAttentionListed))
	} else {
		b.Grow(1024 + 120*len(t.sites))
	}
	b.WriteString("# Fleet status\n\n")
	// The fleet's newest revision is not written here: a commit that
	// touches no site would then change this file and cost a status
	// commit. Each row names the revision its site reflects.
	b.WriteString("Written by siteops: one document per site (`<site>.yaml`), described in docs/status.md.\n\n")
	if paged {
		fmt.Fprintf(&b, "%d sites, listed on %d [pages](#pages): a site is on the page its name hashes to (FNV-1a, modulo %d).\n\n",
			len(t.sites), readmePages, readmePages)
	}
	b.WriteString("| phase | sites |\n| --- | ---: |\n")
	for _, p := range engine.Phases() {
		if sum.phases[p] > 0 {
			fmt.Fprintf(&b, "| %s | %d |\n", p, sum.phases[p])
		}
	}
	if sum.orphaned > 0 {
		fmt.Fprintf(&b, "| orphaned | %d |\n", sum.orphaned)
	}
	if sum.attention > 0 {
		fmt.Fprintf(&b, "| needs attention | %d |\n", sum.attention)
	}
	if len(sum.problems) > 0 {
		b.WriteString("\n## Problems that concern no site\n\n")
		b.WriteString("| where | rule | message |\n| --- | --- | --- |\n")
		for _, f := range sum.problems {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", cell(f.Pos.String()), cell(f.Rule), cell(f.Message))
		}
	}
	if !paged {
		b.WriteString("\n## Sites\n\n")
		writeTableHead(&b)
		for _, name := range t.sites {
			t.rows[name].writeTo(&b, name, "")
		}
		return redact.Bytes(b.Bytes())
	}
	if len(t.attention) > 0 {
		b.WriteString("\n## Sites that need attention\n\n")
		writeTableHead(&b)
		for _, name := range t.attention[:min(len(t.attention), maxAttentionListed)] {
			t.rows[name].writeTo(&b, name, "")
		}
		if n := len(t.attention) - maxAttentionListed; n > 0 {
			fmt.Fprintf(&b, "\nand %d more, on the pages that count them below.\n", n)
		}
	}
	b.WriteString("\n## Pages\n\n| page | sites | need attention |\n| --- | ---: | ---: |\n")
	for i := range readmePages {
		fmt.Fprintf(&b, "| [%02d](%s) | %d | %d |\n", i, readmePageFile(i), len(t.pages[i]), t.attentionOn[i])
	}
	return redact.Bytes(b.Bytes())
}

// page renders page i: the rows of its sites, by name.
func (t *fleetTable) page(i int) []byte {
	var b bytes.Buffer
	b.Grow(512 + 120*len(t.pages[i]))
	fmt.Fprintf(&b, "# Fleet status: page %02d of %d\n\n", i, readmePages)
	fmt.Fprintf(&b, "The sites whose name hashes to this page (FNV-1a, modulo %d), by name; the [fleet](../%s) counts them all.\n\n",
		readmePages, status.ReadmeFile)
	writeTableHead(&b)
	for _, name := range t.pages[i] {
		t.rows[name].writeTo(&b, name, "../")
	}
	return redact.Bytes(b.Bytes())
}

// writeTableHead writes the header of a table of rows.
func writeTableHead(b *bytes.Buffer) {
	b.WriteString("| " + strings.Join(readmeColumns, " | ") + " |\n|")
	for range readmeColumns {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
}

// writeReadme brings the status README and its pages up to date, and
// reports whether any changed.
func (l *Loop) writeReadme() bool {
	sum := fleetSummary{phases: map[engine.Phase]int{}}
	l.mu.RLock()
	sum.problems = l.fleet.problems
	for _, r := range l.ix.sites {
		sum.phases[r.phase]++
		if r.orphaned {
			sum.orphaned++
		}
		if r.attention {
			sum.attention++
		}
	}
	l.mu.RUnlock()
	return l.out.table.write(l.out.files, sum)
}
