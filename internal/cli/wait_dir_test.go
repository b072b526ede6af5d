package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/reconciler/status"
)

// A wait started before the loop's first pass, when status/ does not
// exist yet, waits for it instead of failing; a status directory whose
// parent does not exist either is still a mistake.
func TestWaitForAStatusDirectoryNotMadeYet(t *testing.T) {
	fleet := t.TempDir()
	go func() {
		time.Sleep(300 * time.Millisecond)
		doc := status.Document{SiteStatus: engine.SiteStatus{Site: "late-sno", Phase: engine.PhaseInstalled, Cluster: engine.ClusterStatus{Percent: 100, Installed: true}}}
		data, err := status.Encode(&doc)
		if err != nil {
			t.Error(err)
			return
		}
		dir := filepath.Join(fleet, status.Dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Error(err)
			return
		}
		if err := os.WriteFile(filepath.Join(dir, "late-sno.yaml"), data, 0o644); err != nil {
			t.Error(err)
		}
	}()
	out, stderr, code := run(t, "wait", "late-sno", "--dir", fleet, "--interval", "50ms", "--timeout", "1m")
	if code != 0 || !strings.Contains(out+stderr, "waiting for the loop's first status") {
		t.Errorf("exit %d:\n%s%s", code, out, stderr)
	}
	_, stderr, code = run(t, "wait", "late-sno", "--dir", filepath.Join(fleet, "no", "such"), "--timeout", "1s")
	if code != ExitFailure || !strings.Contains(stderr, "no status directory") {
		t.Errorf("a status directory with no parent: exit %d: %s", code, stderr)
	}
}
