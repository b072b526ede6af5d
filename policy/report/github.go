package report

import (
	"bytes"
	"io"
	"strconv"
	"strings"
)

// githubWriter prints GitHub Actions workflow commands, which GitHub
// turns into annotations on the files of a pull request:
//
//	::error file=sites/sno1.yaml,line=12,col=5,title=ztp.network.vip-in-machine-network::API VIP …%0Aremediation: …
//	::warning file=…,title=…::…
//	::notice file=…,title=…::…%0Awaived: lab BMCs
//	3 sites checked: 1 deny, 1 warn, 1 waived
//
// deny is ::error, warn ::warning and a waived finding ::notice. file,
// line and col are left out when unknown (GitHub then shows the
// annotation without a place) and file is relative (see WithRoot).
// Values are escaped as @actions/core does: '%', CR and LF in the
// message, and also ':' and ',' in properties, so no finding can end a
// command early or start another. GitHub shows at most 10 annotations of
// each level per step; use SARIF to see them all.
type githubWriter struct{ *options }

var (
	githubData     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	githubProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func (g *githubWriter) Write(w io.Writer, r *Report) error {
	r, err := g.prepare(r)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	for i := range r.Findings {
		f := &r.Findings[i]
		command := "warning"
		switch {
		case f.Waived != "" || f.Severity == Info:
			command = "notice"
		case f.Severity == Deny:
			command = "error"
		}
		var props []string
		if f.Pos.File != "" {
			props = append(props, "file="+githubProperty.Replace(g.relPath(f.Pos.File)))
			if f.Pos.Line >= 1 {
				props = append(props, "line="+strconv.Itoa(f.Pos.Line))
				if f.Pos.Column >= 1 {
					props = append(props, "col="+strconv.Itoa(f.Pos.Column))
				}
			}
		}
		props = append(props, "title="+githubProperty.Replace(f.Rule)) // never empty: prepare checks

		msg := strings.TrimRight(f.Message, "\n")
		if f.Waived != "" {
			msg += "\nwaived: " + f.Waived
		}
		if f.Remediation != "" {
			msg += "\nremediation: " + f.Remediation
		}
		b.WriteString("::" + command + " " + strings.Join(props, ",") + "::" + githubData.Replace(msg) + "\n")
	}
	b.WriteString(summary(r))
	b.WriteString("\n")
	_, err = w.Write(b.Bytes())
	return err
}
