package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/siteops/siteops/internal/parallel"
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
	// The report without its findings, which are encoded apart.
	out := newJSONReport(r)
	out.Findings = []Finding{}
	var head bytes.Buffer
	if err := encodeJSON(&head, out, ""); err != nil {
		return err
	}
	if len(r.Findings) == 0 {
		_, err := w.Write(head.Bytes())
		return err
	}
	// The report ends with `"findings": []`, the closing brace and a
	// newline; the findings go between the brackets, each indented as
	// the encoder indents an element of that array.
	b := head.Bytes()
	const tail = "[]\n}\n"
	if !bytes.HasSuffix(b, []byte(tail)) {
		return fmt.Errorf("report: the JSON report does not end with its findings")
	}
	chunks, err := encodeFindings(r.Findings)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(b[:len(b)-len(tail)])
	bw.WriteString("[\n")
	for i, c := range chunks {
		if i > 0 {
			bw.WriteString(",\n")
		}
		bw.Write(c)
	}
	bw.WriteString("\n  ]\n}\n")
	return bw.Flush()
}

// newJSONReport is what the JSON report holds of a prepared report.
func newJSONReport(r *Report) jsonReport {
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
	return out
}

// findingIndent is the indent of an element of the report's findings.
const findingIndent = "    "

// encodeFindings encodes the findings as they read in the report, in
// chunks on every core: a check of ten thousand sites can report ten
// thousand findings, and encoding them one after the other was most of
// the time the check took after its last site. Each chunk holds its
// findings, each indented, separated by commas and newlines.
func encodeFindings(fs []Finding) ([][]byte, error) {
	const chunk = 256
	chunks := make([][]byte, (len(fs)+chunk-1)/chunk)
	errs := make([]error, len(chunks))
	parallel.Each(len(chunks), 1, func(c int) {
		var buf bytes.Buffer
		for i := c * chunk; i < min((c+1)*chunk, len(fs)); i++ {
			if i > c*chunk {
				buf.WriteString(",\n")
			}
			buf.WriteString(findingIndent)
			if err := encodeJSON(&buf, &fs[i], findingIndent); err != nil {
				errs[c] = err
				return
			}
			buf.Truncate(buf.Len() - 1) // the encoder's newline
		}
		chunks[c] = buf.Bytes()
	})
	return chunks, errors.Join(errs...)
}

// encodeJSON encodes v as the report does, every line after the first
// prefixed.
func encodeJSON(w io.Writer, v any, prefix string) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	return enc.Encode(v)
}
