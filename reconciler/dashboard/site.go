package dashboard

import (
	"slices"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/reconciler/status"
)

// siteView is what the site page shows of one document.
type siteView struct {
	*status.Document
	// Attention says why the site needs a person, "" when it needs none.
	Attention string
	// FailingCluster are the cluster validations that fail; pending
	// ones resolve by themselves and are left to the JSON.
	FailingCluster []engine.Validation
	Deny, Warn     int
	// Findings are sorted deny first, then by file and line.
	Findings []report.Finding
	// Events are the latest first.
	Events []engine.Event
}

func newSiteView(d *status.Document) siteView {
	v := siteView{Document: d, Attention: status.AttentionLine(d), FailingCluster: status.FailingValidations(d.Cluster.Validations)}
	v.Deny, v.Warn = status.CountFindings(d.Findings)
	v.Findings = slices.Clone(d.Findings)
	slices.SortStableFunc(v.Findings, func(a, b report.Finding) int {
		if a.Severity != b.Severity {
			if a.Severity == report.Deny {
				return -1
			}
			if b.Severity == report.Deny {
				return 1
			}
		}
		if a.Pos.File != b.Pos.File {
			if a.Pos.File < b.Pos.File {
				return -1
			}
			return 1
		}
		return a.Pos.Line - b.Pos.Line
	})
	v.Events = slices.Clone(d.Events)
	slices.SortStableFunc(v.Events, func(a, b engine.Event) int { return b.Time.Compare(a.Time) })
	return v
}
