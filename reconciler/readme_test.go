package reconciler

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/internal/redact"
	"github.com/siteops/siteops/reconciler/source"
	"github.com/siteops/siteops/reconciler/status"
)

// siteNames returns n site names, from index from.
func siteNames(from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("sno-%05d", from+i)
	}
	return out
}

// tableDoc is a status document for the fleet table: failed when failed
// is set, else installing at percent.
func tableDoc(site string, percent int, failed bool) *status.Document {
	doc := &status.Document{SiteStatus: engine.SiteStatus{Site: site, Phase: engine.PhaseInstalling, Revision: "0123456789abcdef"}}
	doc.Cluster.Percent = percent
	if failed {
		doc.Phase, doc.Reason, doc.Message = engine.PhaseFailed, engine.ReasonInstallFailed, "the installation of "+site+" failed"
	}
	return doc
}

// tableFleet is a fleet table of sites, their documents in files, as the
// loop keeps them.
type tableFleet struct {
	t     *fleetTable
	files *source.StatusFiles
	sum   fleetSummary
}

func newTableFleet() *tableFleet {
	return &tableFleet{t: newFleetTable(), files: source.NewStatusFiles(), sum: fleetSummary{phases: map[engine.Phase]int{}}}
}

func (f *tableFleet) set(doc *status.Document) {
	if file, ok := status.FileName(doc.Site); ok {
		f.files.Set(file, []byte("site: "+doc.Site+"\n"))
	}
	if old, ok := f.t.rows[doc.Site]; ok && old.attention {
		f.sum.attention--
	}
	f.t.set(doc.Site, newReadmeRow(doc))
	if status.NeedsAttention(doc) {
		f.sum.attention++
	}
}

func (f *tableFleet) drop(site string) {
	if file, ok := status.FileName(site); ok {
		f.files.Delete(file)
	}
	if old, ok := f.t.rows[site]; ok && old.attention {
		f.sum.attention--
	}
	f.t.drop(site)
}

// write writes the table and returns the status files after it.
func (f *tableFleet) write() map[string]string {
	f.sum.phases = map[engine.Phase]int{engine.PhaseInstalling: len(f.t.sites) - f.sum.attention, engine.PhaseFailed: f.sum.attention}
	f.t.write(f.files, f.sum)
	out := map[string]string{}
	for _, p := range f.files.Paths() {
		data, _, err := f.files.Get(p)
		if err != nil {
			panic(err) // the set compressed it itself
		}
		out[p] = string(data)
	}
	return out
}

// tableFiles returns the README and the pages of files.
func tableFiles(files map[string]string) map[string]string {
	out := map[string]string{}
	for p, data := range files {
		if p == status.ReadmeFile || strings.HasPrefix(p, readmePagesDir+"/") {
			out[p] = data
		}
	}
	return out
}

// changedFiles returns the paths whose content differs between a and b.
func changedFiles(a, b map[string]string) []string {
	var out []string
	for p := range a {
		if d, ok := b[p]; !ok || d != a[p] {
			out = append(out, p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

var markdownLink = regexp.MustCompile(`\]\(([^)]*)\)`)

// checkLinks fails unless every link of the README and pages leads to a
// file of files, or to a heading of its own file.
func checkLinks(t *testing.T, files map[string]string) {
	t.Helper()
	for p, data := range tableFiles(files) {
		for _, m := range markdownLink.FindAllStringSubmatch(data, -1) {
			target := m[1]
			if anchor, ok := strings.CutPrefix(target, "#"); ok {
				if !strings.Contains(data, "\n## "+strings.ToUpper(anchor[:1])+anchor[1:]+"\n") {
					t.Errorf("%s: link %q: no such heading", p, target)
				}
				continue
			}
			to := path.Join(path.Dir(p), target)
			if _, ok := files[to]; !ok {
				t.Errorf("%s: link %q leads to %s, which is not a status file", p, target, to)
			}
		}
	}
}

// pageOf returns the page file listing site, failing unless exactly one
// does.
func pageOf(t *testing.T, files map[string]string, site string) string {
	t.Helper()
	var on []string
	for p, data := range tableFiles(files) {
		if strings.HasPrefix(p, readmePagesDir+"/") && strings.Contains(data, "| ["+site+"](../"+site+".yaml) |") {
			on = append(on, p)
		}
	}
	if len(on) != 1 {
		t.Fatalf("%s is listed on the pages %v; want one", site, on)
	}
	return on[0]
}

func TestReadmeOfASmallFleetIsOneTable(t *testing.T) {
	f := newTableFleet()
	f.set(tableDoc("a", 40, false))
	f.set(tableDoc("b|c", 0, true))
	f.set(tableDoc("README", 10, false))
	want := "# Fleet status\n\n" +
		"Written by siteops: one document per site (`<site>.yaml`), described in docs/status.md.\n\n" +
		"| phase | sites |\n| --- | ---: |\n| Failed | 1 |\n| Installing | 2 |\n| needs attention | 1 |\n\n" +
		"## Sites\n\n| site | phase | reason | cluster | hosts | revision | message |\n| --- | --- | --- | --- | --- | --- | --- |\n" +
		"| README | Installing |  | 10% | 0 | 0123456789ab |  |\n" +
		"| [a](a.yaml) | Installing |  | 40% | 0 | 0123456789ab |  |\n" +
		"| [b\\|c](b%7Cc.yaml) | Failed | InstallFailed | 0% | 0 | 0123456789ab | the installation of b\\|c failed |\n"
	if got := f.write()[status.ReadmeFile]; got != want {
		t.Errorf("README:\n%s\nwant:\n%s", got, want)
	}
}

func TestReadmePagesAboveTheThreshold(t *testing.T) {
	for _, tc := range []struct {
		name      string
		sites     int
		failed    int
		paged     bool
		listed    int    // sites that need attention listed in the README
		more      string // what the README says of the others
		rowsInTop int    // rows of the README's site table
	}{
		{"at the threshold", readmePagedAbove, 3, false, 0, "", readmePagedAbove},
		{"one above", readmePagedAbove + 1, 3, true, 3, "", 0},
		{"many failed", 3000, maxAttentionListed + 7, true, maxAttentionListed, "and 7 more, on the pages", 0},
		{"none failed", 3000, 0, true, 0, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newTableFleet()
			for i, name := range siteNames(0, tc.sites) {
				f.set(tableDoc(name, i%100, i < tc.failed))
			}
			files := f.write()
			checkLinks(t, files)
			readme := files[status.ReadmeFile]
			var pages []string
			for p := range tableFiles(files) {
				if p != status.ReadmeFile {
					pages = append(pages, p)
				}
			}
			if !tc.paged {
				if len(pages) != 0 {
					t.Errorf("pages %v; want none", pages)
				}
				if n := strings.Count(readme, ".yaml) |"); n != tc.rowsInTop {
					t.Errorf("README has %d rows; want %d", n, tc.rowsInTop)
				}
				return
			}
			if len(pages) != readmePages {
				t.Fatalf("%d pages; want %d", len(pages), readmePages)
			}
			if n := strings.Count(readme, ".yaml) |"); n != tc.listed {
				t.Errorf("README lists %d sites; want %d:\n%s", n, tc.listed, readme)
			}
			if tc.more != "" && !strings.Contains(readme, tc.more) {
				t.Errorf("README does not say %q:\n%s", tc.more, readme)
			}
			if strings.Contains(readme, "more, on the pages") != (tc.more != "") {
				t.Errorf("README says there are more sites that need attention; want it only with %q", tc.more)
			}
			total := 0
			for _, p := range pages {
				total += strings.Count(files[p], ".yaml) |")
			}
			if total != tc.sites {
				t.Errorf("the pages list %d sites; want %d", total, tc.sites)
			}
			for _, name := range siteNames(0, tc.sites)[:20] {
				if got, want := pageOf(t, files, name), readmePageFile(readmePage(name)); got != want {
					t.Errorf("%s is on %s; want %s", name, got, want)
				}
			}
			if want := fmt.Sprintf("| [%02d](%s) | %d |", 7, readmePageFile(7), len(f.t.pages[7])); !strings.Contains(readme, want) {
				t.Errorf("README has no %q", want)
			}
			if len(readme) > 16<<10 {
				t.Errorf("README has %d bytes; want it bounded", len(readme))
			}
		})
	}
}

func TestReadmePagesFollowTheChange(t *testing.T) {
	const n = 2 * readmePagedAbove
	start := func(t *testing.T) (*tableFleet, map[string]string) {
		f := newTableFleet()
		for i, name := range siteNames(0, n) {
			f.set(tableDoc(name, i%50, false))
		}
		return f, f.write()
	}
	for _, tc := range []struct {
		name   string
		change func(f *tableFleet)
		// pages are the sites whose page alone changes; readme whether
		// the README changes too.
		pages  []string
		readme bool
	}{
		{"progress of one site", func(f *tableFleet) { f.set(tableDoc("sno-00042", 99, false)) }, []string{"sno-00042"}, false},
		{"one site fails", func(f *tableFleet) { f.set(tableDoc("sno-00042", 0, true)) }, []string{"sno-00042"}, true},
		{"a site added", func(f *tableFleet) { f.set(tableDoc("sno-99999", 0, false)) }, []string{"sno-99999"}, true},
		{"a site removed", func(f *tableFleet) { f.drop("sno-00007") }, []string{"sno-00007"}, true},
		{"nothing", func(f *tableFleet) {}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, before := start(t)
			tc.change(f)
			after := f.write()
			checkLinks(t, after)
			var want []string
			for _, site := range tc.pages {
				want = append(want, readmePageFile(readmePage(site)))
			}
			if tc.readme {
				want = append(want, status.ReadmeFile)
			}
			slices.Sort(want)
			if got := changedFiles(tableFiles(before), tableFiles(after)); !slices.Equal(got, want) {
				t.Errorf("changed %v; want %v", got, want)
			}
		})
	}
}

func TestReadmePagesAreStableAsTheFleetChanges(t *testing.T) {
	names := siteNames(0, 3*readmePagedAbove)
	f := newTableFleet()
	for _, name := range names {
		f.set(tableDoc(name, 10, false))
	}
	first := f.write()
	// Half the fleet goes, as many new sites come: every site that
	// stays is on the page it was on.
	for _, name := range names[:len(names)/2] {
		f.drop(name)
	}
	for _, name := range siteNames(len(names), len(names)/2) {
		f.set(tableDoc(name, 10, false))
	}
	second := f.write()
	checkLinks(t, second)
	for _, name := range names[len(names)/2:][:50] {
		if a, b := pageOf(t, first, name), pageOf(t, second, name); a != b {
			t.Errorf("%s moved from %s to %s", name, a, b)
		}
	}
	// Down to the threshold: the pages go, the README lists every site.
	for _, name := range slices.Sorted(maps.Keys(f.t.rows))[readmePagedAbove:] {
		f.drop(name)
	}
	third := f.write()
	checkLinks(t, third)
	if pages := len(tableFiles(third)) - 1; pages != 0 {
		t.Errorf("%d pages left at %d sites; want none", pages, readmePagedAbove)
	}
	if n := strings.Count(third[status.ReadmeFile], ".yaml) |"); n != readmePagedAbove {
		t.Errorf("README has %d rows; want %d", n, readmePagedAbove)
	}
	// And up again: every page is written.
	f.set(tableDoc("sno-99999", 10, false))
	if pages := len(tableFiles(f.write())) - 1; pages != readmePages {
		t.Errorf("%d pages; want %d", pages, readmePages)
	}
}

// A credential in a row is hidden before the message is cut to its
// length or escaped for the table, either of which would change the text
// it is found as.
func TestReadmeRowHidesCredentialsBeforeCuttingAndEscaping(t *testing.T) {
	escaped := "pw|with<markup>"
	straddling := "secret-straddling-the-cut"
	redact.Register(escaped, straddling)
	doc := tableDoc("a", 0, true)
	// The cut keeps maxMessage-1 runes: the first ten of straddling are
	// inside it, the rest after it.
	prefix := "bmc said " + escaped + "; "
	doc.Message = prefix + strings.Repeat("x", maxMessage-1-10-len(prefix)) + straddling
	row := newReadmeRow(doc)
	text := row.name + row.cells
	for _, leak := range []string{escaped, cell(escaped), straddling[:10], "pw", "markup"} {
		if strings.Contains(text, leak) {
			t.Errorf("row %q holds %q", text, leak)
		}
	}
	if !strings.Contains(text, redact.Mask) {
		t.Errorf("row %q does not say a value was hidden", text)
	}
}
