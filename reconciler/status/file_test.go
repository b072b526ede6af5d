package status

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/siteops/siteops/engine"
)

// docs/status.md documents every phase and reason in its tables, with
// what the user does about it.
func TestDocsListEveryPhaseAndReason(t *testing.T) {
	data, err := os.ReadFile("../../docs/status.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, p := range engine.Phases() {
		if !strings.Contains(doc, "| `"+string(p)+"` |") {
			t.Errorf("docs/status.md has no row for phase %s", p)
		}
	}
	for _, r := range engine.Reasons() {
		if !strings.Contains(doc, "| `"+string(r)+"` |") {
			t.Errorf("docs/status.md has no row for reason %s", r)
		}
	}
}

func TestFileName(t *testing.T) {
	for site, want := range map[string]string{
		"marlow-sno-01": "marlow-sno-01.yaml", "": "", "../x": "", "a/b": "", `a\\b`: "", ".hidden": "", "README": "", "nul\x00": "",
	} {
		got, ok := FileName(site)
		if got != want || ok != (want != "") {
			t.Errorf("FileName(%q) = %q, %v; want %q", site, got, ok, want)
		}
	}
}

// A document read back is the document written, and a directory read
// names the file that does not parse without hiding the others.
func TestEncodeDecodeReadDir(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 30, 0, 0, time.UTC)
	d := Document{SiteStatus: engine.SiteStatus{Site: "a", Phase: engine.PhaseInstalling, Reason: engine.ReasonNoProgress,
		Revision: "r1", RefusedRevision: "r2", LastProgressAt: &at, Message: "m"}, ObservedRevision: "r2"}
	data, err := Encode(&d)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Encode(&d)
	if err != nil || string(again) != string(data) {
		t.Fatalf("encoding is not stable: %v", err)
	}
	fsys := fstest.MapFS{
		"status/a.yaml":    {Data: data},
		"status/b.yaml":    {Data: []byte("phase: [")},
		"status/README.md": {Data: []byte("# x")},
		"status/big.yaml":  {Data: make([]byte, MaxDocumentSize+1)},
	}
	entries, err := ReadDir(fsys, "status")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 {
		t.Fatalf("%d entries, want 3: %+v", len(entries), entries)
	}
	got := entries[0]
	if got.Err != nil || got.Site != "a" || got.Doc.Reason != engine.ReasonNoProgress || got.Doc.RefusedRevision != "r2" || !got.Doc.LastProgressAt.Equal(at) {
		t.Errorf("a: %+v %v", got.Doc, got.Err)
	}
	for _, e := range entries[1:] {
		if e.Err == nil || !strings.Contains(e.Err.Error(), e.File) && e.Site != "big" {
			t.Errorf("%s: error %v", e.File, e.Err)
		}
	}
	if none, err := ReadDir(fsys, "nowhere"); err != nil || none != nil {
		t.Errorf("missing directory: %v %v", none, err)
	}
}

func TestNeedsAttention(t *testing.T) {
	for _, c := range []struct {
		phase  engine.Phase
		reason engine.Reason
		want   bool
	}{
		{engine.PhaseInstalled, "", false},
		{engine.PhaseInstalled, engine.ReasonPartiallyInstalled, true},
		{engine.PhasePending, engine.ReasonHeld, false},
		{engine.PhaseFailed, "", true},
		{engine.PhaseInvalid, engine.ReasonLoadFailed, true},
		{engine.PhasePolicyFailed, "", true},
		{engine.PhaseInstalling, "SomethingNew", true},
	} {
		d := Document{SiteStatus: engine.SiteStatus{Phase: c.phase, Reason: c.reason}}
		if got := NeedsAttention(&d); got != c.want {
			t.Errorf("%s/%s: %v, want %v", c.phase, c.reason, got, c.want)
		}
	}
}
