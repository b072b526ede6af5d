package report

import (
	"encoding/json"
	"io"
)

// jsonWriter prints the report as one indented JSON object:
//
//	{
//	  "revision": "…",
//	  "base": "origin/main",                // with --base
//	  "summary": {"sites": 3, "deny": 2, "warn": 1, "waived": 1,
//	              "preExisting": 4},        // with --base
//	  "findings": [ …Finding… ]
//	}
//
// The summary counts as Report.Count and Report.Waived do, so a script
// can decide as the exit code does without counting itself. findings is
// [] rather than null when there are none. HTML characters are not
// escaped: the output is read by scripts and people, not embedded in
// pages.
type jsonWriter struct{ *options }

type jsonReport struct {
	Revision string      `json:"revision,omitempty"`
	Base     string      `json:"base,omitempty"`
	Summary  jsonSummary `json:"summary"`
	Findings []Finding   `json:"findings"`
}

type jsonSummary struct {
	Sites int `json:"sites"`
	Deny  int `json:"deny"`
	Warn  int `json:"warn"`
	// Info counts the notes, which never fail a check.
	Info   int `json:"info,omitempty"`
	Waived int `json:"waived"`
	// PreExisting is set in pull-request mode (Report.Since): the
	// findings left out because the base revision has them too.
	PreExisting int `json:"preExisting,omitempty"`
}

func (j *jsonWriter) Write(w io.Writer, r *Report) error {
	r, err := j.prepare(r)
	if err != nil {
		return err
	}
	out := jsonReport{
		Revision: r.Revision,
		Base:     r.Base,
		Summary: jsonSummary{
			Sites:       r.Sites,
			Deny:        r.Count(Deny),
			Warn:        r.Count(Warn),
			Info:        r.Count(Info),
			Waived:      r.Waived(),
			PreExisting: r.PreExisting,
		},
		Findings: r.Findings,
	}
	if out.Findings == nil {
		out.Findings = []Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
