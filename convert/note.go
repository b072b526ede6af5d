package convert

import (
	"fmt"
	"strings"

	"github.com/siteops/siteops/sites"
)

// NoteKind says what happened to a SiteConfig field.
type NoteKind string

const (
	// Dropped: nothing in the ClusterInstance carries the field.
	Dropped NoteKind = "dropped"
	// Renamed: the value carries over under another name or shape.
	Renamed NoteKind = "renamed"
	// Changed: the value carries over, but the cluster it produces differs.
	Changed NoteKind = "changed"
	// ManualStep: the user has to create or edit something by hand for the
	// ClusterInstance to install the same cluster.
	ManualStep NoteKind = "manual-step"
)

// Note is one thing about a SiteConfig field that does not carry over
// unchanged.
type Note struct {
	// Pos is where the field is written (or its closest written parent).
	Pos sites.Position
	// Site is the cluster name.
	Site string
	// Field is the SiteConfig field path, e.g. spec.clusters[0].apiVIP.
	Field string
	Kind  NoteKind
	// Message says what happened and what to do about it.
	Message string
}

// String formats the note as "file:line:col: site S: field: kind: message",
// the shape of siteops' problem lines.
func (n Note) String() string {
	var b strings.Builder
	b.WriteString(n.Pos.String())
	b.WriteString(": ")
	if n.Site != "" {
		fmt.Fprintf(&b, "site %s: ", n.Site)
	}
	if n.Field != "" {
		fmt.Fprintf(&b, "%s: ", n.Field)
	}
	fmt.Fprintf(&b, "%s: %s", n.Kind, n.Message)
	return b.String()
}

// Error is a cluster that cannot be converted: some value would be
// rejected by ClusterInstance's schema or admission checks. Each problem
// names the SiteConfig field to fix.
type Error struct {
	Site     string
	Problems sites.Problems
}

func (e *Error) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Error()
	}
	return fmt.Sprintf("convert %s: %s", e.Site, strings.Join(msgs, "; "))
}
