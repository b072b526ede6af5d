package dashboard

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/reconciler/status"
)

// Row is one site in the fleet overview.
type Row struct {
	Site    string       `json:"site"`
	Phase   engine.Phase `json:"phase"`
	Message string       `json:"message,omitempty"`
	// Reason is the site's reason (docs/status.md); Attention says why
	// the site needs a person, "" when it needs none.
	Reason           engine.Reason `json:"reason,omitempty"`
	Attention        string        `json:"attention,omitempty"`
	Orphaned         bool          `json:"orphaned,omitempty"`
	Revision         string        `json:"revision,omitempty"`
	ObservedRevision string        `json:"observedRevision,omitempty"`
	ClusterPercent   int           `json:"clusterPercent"`
	Hosts            int           `json:"hosts"`
	HostsDone        int           `json:"hostsDone"`
	DenyFindings     int           `json:"denyFindings"`
	WarnFindings     int           `json:"warnFindings"`

	rank int
}

// NeedsAttention reports whether a person should look at the site.
func (r Row) NeedsAttention() bool { return r.Attention != "" }

func newRow(d *status.Document) Row {
	r := Row{
		Site:             d.Site,
		Phase:            d.Phase,
		Message:          d.Message,
		Reason:           d.Reason,
		Attention:        status.AttentionLine(d),
		Orphaned:         d.Orphaned,
		Revision:         d.Revision,
		ObservedRevision: d.ObservedRevision,
		ClusterPercent:   d.Cluster.Percent,
		Hosts:            len(d.Hosts),
		HostsDone:        status.HostsDone(d),
	}
	r.DenyFindings, r.WarnFindings = status.CountFindings(d.Findings)
	r.rank = rank(d)
	return r
}

// Query is what the overview shows: a filter, a search and a page. It
// travels in the URL (?phase=Failed&q=sno&attention=1&page=2) so that the
// page works without JavaScript and can be bookmarked.
type Query struct {
	// Search keeps sites whose name contains it, ignoring case.
	Search string
	// Phase keeps sites in that phase; empty keeps all.
	Phase engine.Phase
	// Attention keeps only the sites that need a person.
	Attention bool
	// Page counts from 1.
	Page int
}

// maxSearch bounds the search text taken from a URL.
const maxSearch = 253 // the longest DNS name, longer than any site name

func parseQuery(v url.Values) (Query, error) {
	q := Query{Search: strings.TrimSpace(v.Get("q")), Page: 1}
	if len(q.Search) > maxSearch {
		return q, fmt.Errorf("q: the search is longer than %d characters", maxSearch)
	}
	if p := v.Get("phase"); p != "" {
		if !engine.Phase(p).Known() {
			return q, fmt.Errorf("phase: unknown phase %q; use one of %s", p, phaseList())
		}
		q.Phase = engine.Phase(p)
	}
	switch a := v.Get("attention"); a {
	case "", "0", "false":
	case "1", "true", "on":
		q.Attention = true
	default:
		return q, fmt.Errorf("attention: %q is not 1 or 0", a)
	}
	if p := v.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return q, fmt.Errorf("page: %q is not a page number (1, 2, …)", p)
		}
		q.Page = n
	}
	return q, nil
}

func phaseList() string {
	s := make([]string, len(engine.Phases()))
	for i, p := range engine.Phases() {
		s[i] = string(p)
	}
	return strings.Join(s, ", ")
}

// Values encodes the query for a link, leaving out what is default.
func (q Query) Values() url.Values {
	v := url.Values{}
	if q.Search != "" {
		v.Set("q", q.Search)
	}
	if q.Phase != "" {
		v.Set("phase", string(q.Phase))
	}
	if q.Attention {
		v.Set("attention", "1")
	}
	if q.Page > 1 {
		v.Set("page", strconv.Itoa(q.Page))
	}
	return v
}

// URL is the overview link for the query.
func (q Query) URL() string {
	if e := q.Values().Encode(); e != "" {
		return "/?" + e
	}
	return "/"
}

// WithPage is the same query on another page.
func (q Query) WithPage(n int) Query { q.Page = n; return q }

// WithPhase is the same search on the first page of another phase filter,
// without the attention filter.
func (q Query) WithPhase(p engine.Phase) Query {
	q.Phase, q.Attention, q.Page = p, false, 1
	return q
}

// WithAttention is the same search on the first page of the sites that
// need a person.
func (q Query) WithAttention() Query {
	q.Phase, q.Attention, q.Page = "", true, 1
	return q
}

func (q Query) keeps(d *status.Document, rank int) bool {
	if q.Phase != "" && d.Phase != q.Phase {
		return false
	}
	if q.Attention && !status.NeedsAttention(d) {
		return false
	}
	return q.Search == "" || containsFold(d.Site, q.Search)
}

// containsFold reports whether s contains sub, ignoring ASCII case (site
// names are DNS labels).
func containsFold(s, sub string) bool {
	n := len(sub)
	for i := 0; i+n <= len(s); i++ {
		if strings.EqualFold(s[i:i+n], sub) {
			return true
		}
	}
	return false
}

// PhaseCount is how many sites of the whole fleet are in one phase.
type PhaseCount struct {
	Phase engine.Phase `json:"phase"`
	Sites int          `json:"sites"`
}

// Overview is one page of the fleet overview.
type Overview struct {
	Summary Summary `json:"summary"`
	// Sites is the size of the whole fleet; Counts its sites per phase,
	// every known phase listed, and Attention how many need a person.
	Sites     int          `json:"sites"`
	Counts    []PhaseCount `json:"counts"`
	Attention int          `json:"attention"`
	// Matching is how many sites the query keeps, over Pages pages.
	Matching int   `json:"matching"`
	Page     int   `json:"page"`
	Pages    int   `json:"pages"`
	PageSize int   `json:"pageSize"`
	Rows     []Row `json:"rows"`
	Query    Query `json:"-"`
}

// First and Last number the rows shown, counting from 1.
func (o *Overview) First() int {
	if len(o.Rows) == 0 {
		return 0
	}
	return (o.Page-1)*o.PageSize + 1
}

func (o *Overview) Last() int { return (o.Page-1)*o.PageSize + len(o.Rows) }

// overview builds a page of the overview. A page past the end shows the
// last page: the fleet may have shrunk since the link was made. Only the
// rows of the page are built; the rest of the fleet is ranked and
// counted in place.
func overview(docs []status.Document, q Query, pageSize int) Overview {
	o := Overview{Sites: len(docs), PageSize: pageSize, Query: q}
	counts := map[engine.Phase]int{}
	type match struct{ rank, i int }
	var kept []match
	for i := range docs {
		d := &docs[i]
		r := rank(d)
		counts[d.Phase]++
		if status.NeedsAttention(d) {
			o.Attention++
		}
		if q.keeps(d, r) {
			kept = append(kept, match{r, i})
		}
	}
	for _, p := range engine.Phases() {
		o.Counts = append(o.Counts, PhaseCount{Phase: p, Sites: counts[p]})
		delete(counts, p)
	}
	for _, p := range sortedKeys(counts) {
		o.Counts = append(o.Counts, PhaseCount{Phase: p, Sites: counts[p]})
	}
	slices.SortFunc(kept, func(a, b match) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		return strings.Compare(docs[a.i].Site, docs[b.i].Site)
	})
	o.Matching = len(kept)
	o.Pages = max(1, (len(kept)+pageSize-1)/pageSize)
	o.Page = min(max(q.Page, 1), o.Pages)
	o.Query.Page = o.Page
	start := (o.Page - 1) * pageSize
	o.Rows = []Row{}
	for _, m := range kept[start:min(start+pageSize, len(kept))] {
		o.Rows = append(o.Rows, newRow(&docs[m.i]))
	}
	return o
}

func sortedKeys(m map[engine.Phase]int) []engine.Phase {
	ks := make([]engine.Phase, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// find returns the document of one site.
func find(docs []status.Document, site string) (*status.Document, bool) {
	for i := range docs {
		if docs[i].Site == site {
			return &docs[i], true
		}
	}
	return nil, false
}
