// Package report is the result model of a policy check and the writers
// that print it. The policy engine fills a Report; the CLI picks a
// Writer with Get and the -o flag. This package knows nothing of OPA,
// flags or the process: the Report decides the exit code (ExitCode), the
// writers only print.
//
// # Model
//
// A Finding is one rule's verdict on one site, or on the fleet, with the
// place in the site's source file (sites.Position, 1-based, zero when
// unknown). A waived finding (the site's siteops.io/waive annotation) is
// printed but does not fail the check. A Rule is the metadata of a rule:
// title, remediation and reference.
//
// # Writers
//
// One interface, one file per format, as conftest's output package:
//
//	w, err := report.Get(report.FormatSARIF, report.WithRules(rules), report.WithRoot(repo))
//	err = w.Write(os.Stdout, &rep)
//	os.Exit(rep.ExitCode(failOnWarn))
//
// The formats (Formats lists them):
//
//	text    file:line:col: severity rule: message, an indented remediation,
//	        "(waived: reason)", then "N sites checked: D deny, W warn, X waived"
//	json    {"revision", "summary": {sites, deny, warn, waived}, "findings"}
//	junit   a testsuite per site, a testcase per rule with findings; deny
//	        fails, warn and waived are skipped (warn fails with WithFailOnWarn)
//	sarif   SARIF 2.1.0 for GitHub code scanning; waived results are notes
//	        with an accepted inSource suppression
//	github  ::error/::warning/::notice workflow commands, then the summary
//	tap     TAP 13; deny "not ok", warn "not ok # TODO", waived "ok # SKIP"
//
// Each writer's comment (text.go, json.go, …) gives its exact shape and
// the reasons for it.
//
// # Order and input
//
// Writers sort a copy of the findings (Report.Sort's order: file, line,
// column, rule, site; then severity and message), so output is the same
// on every run whatever order the engine produced, and the caller's
// Report is not modified. They fill in a finding's remediation and
// reference from WithRules when it has none. A finding whose severity is
// neither deny nor warn is an error, reported before anything is
// written. Messages are untrusted text (user policies write them): each
// format escapes them its own way, so none can forge a line, a command,
// a directive or markup.
package report
