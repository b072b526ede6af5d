package reconciler

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/engine/sim"
	"github.com/siteops/siteops/hack/fleetgen/gen"
	"github.com/siteops/siteops/policy"
	"github.com/siteops/siteops/reconciler/status"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// A write of many documents builds and encodes them on all CPUs, each
// worker into a buffer it reuses: every file must still hold exactly the
// bytes of its document encoded alone, and the README its row.
func TestAWriteOfManySitesGivesEachDocumentItsOwnBytes(t *testing.T) {
	fleet := t.TempDir()
	n := 2 * buildParallelFrom
	if _, err := gen.Generate(fleet, gen.Config{Sites: n, Shape: gen.ShapeSNO, Layout: gen.LayoutFiles, Manifests: 2, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	statusDir := filepath.Join(t.TempDir(), "status")
	// The engine's clock moves only when stepped: the documents built
	// afresh are those the loop writes once it settles.
	l, _ := startDirLoop(t, fleet, statusDir, sim.Options{Stepped: true})
	waitDirStatus(t, statusDir, "every site written", func(docs map[string]status.Document) bool { return len(docs) == n })
	deadline := time.Now().Add(time.Minute)
	for {
		mismatch := writtenMismatch(t, l, statusDir)
		if mismatch == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(mismatch)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// writtenMismatch compares the status directory with the documents of
// the loop encoded one by one; "" when they agree.
func writtenMismatch(t *testing.T, l *Loop, statusDir string) string {
	t.Helper()
	docs := l.Documents()
	readme, err := os.ReadFile(filepath.Join(statusDir, status.ReadmeFile))
	if err != nil {
		return err.Error()
	}
	for i := range docs {
		want, err := status.Encode(&docs[i])
		if err != nil {
			t.Fatal(err)
		}
		file, _ := status.FileName(docs[i].Site)
		got, err := os.ReadFile(filepath.Join(statusDir, file))
		if err != nil {
			return err.Error()
		}
		if string(got) != string(want) {
			return file + " holds:\n" + string(got) + "\nwant, encoded alone:\n" + string(want)
		}
		var row bytes.Buffer
		newReadmeRow(&docs[i]).writeTo(&row, docs[i].Site, "")
		if !strings.Contains(string(readme), row.String()) {
			return "README.md has no row " + row.String()
		}
	}
	return ""
}

// Once decided, a site keeps what its apply needs: its whole bundle, or
// its definition to render it again when the pass did not keep the
// bundle; its policy check is dropped either way.
func TestADecidedSiteKeepsOnlyWhatItsApplyNeeds(t *testing.T) {
	site, full := &sites.Site{Name: "a"}, &render.Bundle{}
	for _, tc := range []struct {
		name        string
		full, apply bool
		wantSite    bool
		wantBundle  *render.Bundle
	}{
		{"applied, bundle kept whole", true, true, false, full},
		{"applied, bundle not kept", false, true, true, nil},
		{"not applied, bundle kept whole", true, false, false, nil},
		{"not applied, bundle not kept", false, false, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lo := &loaded{site: site, check: &policy.SiteCheck{}, full: tc.full}
			if tc.full {
				lo.bundle = full
			}
			lo.release(tc.apply)
			if (lo.site != nil) != tc.wantSite {
				t.Errorf("site kept = %v, want %v", lo.site != nil, tc.wantSite)
			}
			// A bundle the load did not keep is nil from the start: only a
			// kept one can be kept or dropped.
			if tc.full && lo.bundle != tc.wantBundle {
				t.Errorf("bundle = %p, want %p", lo.bundle, tc.wantBundle)
			}
			if lo.check != nil {
				t.Error("the policy check is kept after the decision")
			}
		})
	}
}
