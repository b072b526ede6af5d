package reconciler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/internal/redact"
	"github.com/siteops/siteops/reconciler/source"
	"github.com/siteops/siteops/reconciler/status"
)

// writeback holds the status files as last written: the encoded document
// and the README row of every site. Only the Run goroutine uses it.
type writeback struct {
	// files is the status directory: the documents by file name, the
	// README and its pages. The source writes what changed in it since
	// its last write.
	files *source.StatusFiles
	// table holds the README row of every site with a document.
	table *fleetTable
	// unnamed holds the documents of sites whose name gives no file
	// name (status.FileName): not written, kept to tell when they change.
	unnamed map[string]source.StatusFile
	// pending is set when a write failed, so that the next one writes
	// even if nothing changed since.
	pending bool
	// took is how long the last write took, encoding included.
	took time.Duration
}

func newWriteback() *writeback {
	return &writeback{files: source.NewStatusFiles(), table: newFleetTable(), unnamed: map[string]source.StatusFile{}}
}

// has reports whether the site has a document.
func (wb *writeback) has(site string) bool { return wb.table.has(site) }

// set records the document of a site and its README row (kept only
// when the document changed), and reports whether the document changed.
func (wb *writeback) set(site string, doc source.StatusFile, row readmeRow) bool {
	file, named := status.FileName(site)
	switch {
	case named && !wb.files.Put(file, doc):
		return false
	case !named && wb.unnamed[site].Equal(doc) && wb.has(site):
		return false
	case !named:
		wb.unnamed[site] = doc
	}
	wb.table.set(site, row)
	return true
}

// drop forgets the document of a site, and reports whether it had one.
func (wb *writeback) drop(site string) bool {
	if !wb.has(site) {
		return false
	}
	if file, ok := status.FileName(site); ok {
		wb.files.Delete(file)
	}
	delete(wb.unnamed, site)
	wb.table.drop(site)
	return true
}

// document builds the status document of one site. It reports false for
// a site that is gone: deleted by the engine, or never applied and no
// longer defined.
func (l *Loop) document(ctx context.Context, r *record) (status.Document, bool) {
	st, err := l.eng.Status(ctx, r.name)
	switch {
	case errors.Is(err, engine.ErrNotFound):
		if r.deleting || r.unit == "" {
			return status.Document{}, false
		}
		st = engine.SiteStatus{Site: r.name, Phase: engine.PhasePending}
	case err != nil:
		st = engine.SiteStatus{Site: r.name, Phase: r.phase, Reason: engine.ReasonEngineError,
			Message: "The engine could not report the site: " + err.Error()}
	}
	doc := status.Document{SiteStatus: st, ObservedRevision: r.observed, Orphaned: r.orphaned, Findings: r.findings}
	switch {
	case r.blocked:
		if r.blockedAs != "" {
			doc.Phase = r.blockedAs
		}
		doc.Reason, doc.Message = r.reason, r.message
	case r.orphaned:
		doc.Reason, doc.Message = r.reason, r.message
	}
	return doc, true
}

// writeStatus brings the documents of the named sites up to date and,
// when any status file changed, writes the status directory once. It
// reports whether it wrote.
func (l *Loop) writeStatus(ctx context.Context, names map[string]struct{}) (bool, error) {
	wb := l.out
	start := l.o.clock.Now()
	defer func() { wb.took = l.o.clock.Since(start) }()
	updates := make([]docUpdate, 0, len(names))
	for _, name := range slices.Sorted(maps.Keys(names)) {
		updates = append(updates, docUpdate{name: name})
	}
	l.buildDocuments(ctx, updates)
	var changed, gone []string
	for i := range updates {
		u := &updates[i]
		if u.rec != nil && u.brief == nil {
			l.mu.Lock()
			l.ix.drop(u.name)
			l.facts.Forget(u.name)
			l.mu.Unlock()
			gone = append(gone, u.name)
		}
		if u.brief == nil {
			if wb.drop(u.name) {
				changed = append(changed, u.name)
			}
			continue
		}
		if u.err != nil {
			return false, fmt.Errorf("encode the status of %s: %w", u.name, u.err)
		}
		r := u.rec
		l.observe(r, u.brief)
		if attention := status.NeedsAttention(u.brief); u.brief.Phase != r.phase || u.brief.Revision != r.engineRevision || attention != r.attention {
			l.mu.Lock()
			r.phase, r.engineRevision, r.attention = u.brief.Phase, u.brief.Revision, attention
			l.mu.Unlock()
		}
		if wb.set(u.name, u.file, u.row) {
			changed = append(changed, u.name)
		}
		*u = docUpdate{} // the document is the status files' now
	}
	for _, name := range gone {
		l.o.logger.Info("site gone", "site", name)
	}
	l.publish()
	readme := l.writeReadme()
	if len(changed) == 0 && !readme && !wb.pending {
		return false, nil
	}
	l.mu.RLock()
	rev := l.fleet.revision
	l.mu.RUnlock()
	srcStart := l.o.clock.Now()
	wrote, err := l.src.WriteStatus(ctx, wb.files, commitMessage(changed, rev))
	if err != nil {
		wb.pending = true
		l.m.statusErrors.Inc()
		return false, err
	}
	wb.pending = false
	if wrote {
		l.m.statusWrites.Inc()
		// duration covers the documents, encoded, and the source's
		// write (a commit pushed), which source_duration gives alone.
		l.o.logger.Info("status written", "revision", rev, "sites", len(changed), "duration", l.o.clock.Since(start).Round(time.Millisecond),
			"source_duration", l.o.clock.Since(srcStart).Round(time.Millisecond))
	}
	return wrote, nil
}

// docUpdate is what a status write learns of one site: its document
// encoded, its README row and what the loop reads of it (brief), or,
// with brief nil, that the site has no document (rec nil: it is not
// known; else it is gone).
type docUpdate struct {
	name  string
	rec   *record
	brief *status.Document
	file  source.StatusFile
	row   readmeRow
	err   error
}

// buildParallelFrom is the number of documents from which they are built
// and encoded on all CPUs.
const buildParallelFrom = 64

// buildDocuments builds, encodes and renders the README row of the
// document of each update, on all CPUs when there are many (a first pass
// or an installation wave changes every site's document at once). Each
// document is encoded into a buffer its worker reuses and kept
// compressed as a status file (source.StatusFile), and only the few
// fields the loop reads of it outlive the worker: a write of the whole
// fleet holds its documents compressed once, not their structures, their
// text and spare capacity as well.
func (l *Loop) buildDocuments(ctx context.Context, updates []docUpdate) {
	var next atomic.Int64
	work := func() {
		var buf []byte
		for i := int(next.Add(1)) - 1; i < len(updates); i = int(next.Add(1)) - 1 {
			buf = l.buildDocument(ctx, &updates[i], buf[:0])
		}
	}
	if len(updates) < buildParallelFrom {
		work()
		return
	}
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(work)
	}
	wg.Wait()
}

// buildDocument fills u, encoding through buf, which it returns for the
// next document.
func (l *Loop) buildDocument(ctx context.Context, u *docUpdate, buf []byte) []byte {
	l.mu.RLock()
	r := l.ix.sites[u.name]
	var cp record
	if r != nil {
		cp = *r
	}
	l.mu.RUnlock()
	if r == nil {
		return buf
	}
	u.rec = r
	doc, ok := l.document(ctx, &cp)
	if !ok {
		return buf
	}
	u.brief = &status.Document{SiteStatus: engine.SiteStatus{Site: doc.Site, Phase: doc.Phase, Reason: doc.Reason,
		Message: doc.Message, Revision: doc.Revision, Cluster: engine.ClusterStatus{Percent: doc.Cluster.Percent}}}
	// Status files are pushed where everyone who can read the
	// repository reads them: credentials a document may quote are
	// hidden here, once per document that changed, not at every write
	// of the whole directory.
	if buf, u.err = status.AppendEncoded(buf, &doc); u.err == nil {
		u.file = source.NewStatusFile(redact.Bytes(buf))
	}
	u.row = newReadmeRow(&doc)
	return buf
}

// publish updates the metrics that count sites and findings.
func (l *Loop) publish() {
	phase := map[engine.Phase]int{}
	attention := map[engine.Reason]int{}
	findings := map[[2]string]int{}
	l.mu.RLock()
	for _, r := range l.ix.sites {
		// The phase last seen, which may be newer than the one written.
		if r.seen.phase != "" {
			phase[r.seen.phase]++
		} else {
			phase[r.phase]++
		}
		if r.seen.reason.NeedsAttention() {
			attention[r.seen.reason]++
		}
		for _, f := range r.findings {
			findings[findingKey(f)]++
		}
	}
	for _, p := range l.fleet.problems {
		findings[[2]string{p.Rule, string(p.Severity)}]++
	}
	l.mu.RUnlock()
	l.m.setPhases(phase)
	l.m.setAttention(attention)
	l.m.setFindings(findings)
}

// maxListed bounds the site names a commit message or error lists.
const maxListed = 10

// commitMessage names the sites whose status changed.
func commitMessage(changed []string, rev string) string {
	var b strings.Builder
	switch len(changed) {
	case 0:
		b.WriteString("siteops: fleet status")
	case 1:
		fmt.Fprintf(&b, "siteops: status of %s", changed[0])
	default:
		fmt.Fprintf(&b, "siteops: status of %d sites", len(changed))
	}
	fmt.Fprintf(&b, "\n\nRevision: %s\n", rev)
	if len(changed) > 1 {
		fmt.Fprintf(&b, "Sites: %s\n", listNames(changed, maxListed))
	}
	return b.String()
}

// listNames joins names, at most max of them, saying how many more.
func listNames(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:max], ", "), len(names)-max)
}
