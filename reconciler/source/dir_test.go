package source

import (
	"context"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/internal/gittest"
)

// newTestDir starts a directory source on dir with a virtual clock.
func newTestDir(t *testing.T, o DirOptions) (*Dir, *fakeClock) {
	t.Helper()
	clock := newFakeClock()
	o.Clock = clock
	o.Logger = slog.New(slog.NewTextHandler(t.Output(), nil))
	d, err := NewDir(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, clock
}

// nextAfterChange waits for the snapshot that follows a change on disk:
// it steps the virtual clock past the debounce until Next returns
// (fsnotify events arrive in their own time).
func nextAfterChange(t *testing.T, d *Dir, clock *fakeClock) Snapshot {
	t.Helper()
	done := make(chan Snapshot, 1)
	errs := make(chan error, 1)
	go func() {
		snap, err := next(t, d)
		if err != nil {
			errs <- err
			return
		}
		done <- snap
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case snap := <-done:
			return snap
		case err := <-errs:
			t.Fatalf("Next: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("no snapshot after the change")
		}
		clock.Advance(d.o.Debounce)
	}
}

func TestDirSnapshots(t *testing.T) {
	dir := t.TempDir()
	gittest.WriteFiles(t, dir, fleet)
	gittest.WriteFiles(t, dir, map[string]string{".git/HEAD": "ref", "status/old.yaml": "x"})
	d, clock := newTestDir(t, DirOptions{Dir: dir})

	first := mustNext(t, d)
	if first.Changed != nil || !strings.HasPrefix(first.Revision, "sha256:") {
		t.Fatalf("first snapshot: revision %q, Changed %q; want a digest and nil", first.Revision, first.Changed)
	}
	if got := readAll(t, first.FS, "sites"); !maps.Equal(got, prefixedSites(fleet)) {
		t.Errorf("first tree = %q", got)
	}

	steps := []struct {
		name  string
		apply func()
		want  []string
	}{
		{"a file edited", func() {
			gittest.WriteFiles(t, dir, map[string]string{"sites/sno1/siteconfig.yaml": "name: sno1\nv: 2\n"})
		}, []string{"sites/sno1/siteconfig.yaml"}},
		{"a new directory with files", func() {
			gittest.WriteFiles(t, dir, map[string]string{"sites/new/deep/siteconfig.yaml": "name: new\n"})
		}, []string{"sites/new/deep/siteconfig.yaml"}},
		{"a file in the new directory", func() {
			gittest.WriteFiles(t, dir, map[string]string{"sites/new/deep/extra.yaml": "x\n"})
		}, []string{"sites/new/deep/extra.yaml"}},
		{"a file removed, one rewritten with the same content, dot folder and status ignored", func() {
			must(t, os.Remove(filepath.Join(dir, "sites/ha1/siteconfig.yaml")))
			gittest.WriteFiles(t, dir, map[string]string{
				"README.md":          "fleet\n",
				".git/refs/x":        "y",
				"sites/.cache/a.bin": "z",
				"status/sno1.yaml":   "phase: Installed\n",
			})
		}, []string{"sites/ha1/siteconfig.yaml"}},
	}
	prev := first.Revision
	for _, step := range steps {
		step.apply()
		snap := nextAfterChange(t, d, clock)
		if !slices.Equal(snap.Changed, step.want) {
			t.Errorf("%s: Changed = %q, want %q", step.name, snap.Changed, step.want)
		}
		if snap.Revision == prev {
			t.Errorf("%s: revision did not change", step.name)
		}
		prev = snap.Revision
	}

	// Only ignored paths change: Next keeps waiting; Trigger with no
	// change neither returns.
	gittest.WriteFiles(t, dir, map[string]string{"status/ha1.yaml": "x", ".git/y": "y"})
	d.Trigger()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			clock.Advance(d.o.Debounce)
			time.Sleep(10 * time.Millisecond)
		}
	}()
	if snap, err := d.Next(ctx); err == nil {
		t.Errorf("Next returned %q for ignored changes", snap.Changed)
	}
}

func prefixedSites(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if strings.HasPrefix(k, "sites/") {
			out[k] = v
		}
	}
	return out
}

func TestDirRevisionIsContent(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	gittest.WriteFiles(t, a, fleet)
	gittest.WriteFiles(t, b, fleet)
	gittest.WriteFiles(t, b, map[string]string{"status/x.yaml": "ignored", ".hidden/y": "ignored"})
	da, _ := newTestDir(t, DirOptions{Dir: a})
	db, _ := newTestDir(t, DirOptions{Dir: b})
	if ra, rb := mustNext(t, da).Revision, mustNext(t, db).Revision; ra != rb {
		t.Errorf("same content, revisions %s and %s", ra, rb)
	}
}

func TestDirWriteStatus(t *testing.T) {
	tests := []struct {
		name      string
		statusDir func(dir string) string
		where     func(dir string) string
	}{
		{"default", func(string) string { return "" }, func(dir string) string { return filepath.Join(dir, "status") }},
		{"relative", func(string) string { return "out/status" }, func(dir string) string { return filepath.Join(dir, "out", "status") }},
		{"absolute, outside", func(string) string { return filepath.Join(t.TempDir(), "st") }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			gittest.WriteFiles(t, dir, fleet)
			sd := tt.statusDir(dir)
			d, _ := newTestDir(t, DirOptions{Dir: dir, StatusDir: sd})
			mustNext(t, d)
			where := sd
			if tt.where != nil {
				where = tt.where(dir)
			}
			steps := []struct {
				name  string
				files map[string]string
				want  bool
			}{
				{"first", map[string]string{"sno1.yaml": "a\n", "hosts/h1.yaml": "h\n", "README.md": "r\n"}, true},
				{"same", map[string]string{"sno1.yaml": "a\n", "hosts/h1.yaml": "h\n", "README.md": "r\n"}, false},
				{"one changed, one removed", map[string]string{"sno1.yaml": "b\n", "README.md": "r\n"}, true},
				{"empty", map[string]string{}, true},
			}
			files := NewStatusFiles()
			for _, step := range steps {
				holdExactly(files, step.files)
				changed, err := d.WriteStatus(context.Background(), files, "msg")
				if err != nil {
					t.Fatalf("%s: %v", step.name, err)
				}
				if changed != step.want {
					t.Errorf("%s: changed = %v, want %v", step.name, changed, step.want)
				}
				got := map[string]string{}
				if _, err := os.Stat(where); err == nil {
					got = readAll(t, os.DirFS(where), ".")
				}
				if !maps.Equal(got, step.files) {
					t.Errorf("%s: status files = %q, want %q", step.name, got, step.files)
				}
			}
			if _, err := os.Stat(filepath.Join(where, "hosts")); err == nil {
				t.Error("empty status subdirectory left behind")
			}
		})
	}
}

func TestDirWriteStatusStaysInside(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "status"), 0o755))
	must(t, os.Symlink(outside, filepath.Join(dir, "status", "link")))
	d, _ := newTestDir(t, DirOptions{Dir: dir})
	_, err := d.WriteStatus(context.Background(), StatusFilesOf(map[string][]byte{"link/x.yaml": []byte("x")}), "msg")
	if err == nil {
		t.Error("status written through a symlink that leaves the status directory")
	}
	if _, err := os.Stat(filepath.Join(outside, "x.yaml")); err == nil {
		t.Error("a file was written outside the status directory")
	}
}

func TestDirRefused(t *testing.T) {
	dir := t.TempDir()
	for _, o := range []DirOptions{{}, {Dir: filepath.Join(dir, "none")}, {Dir: dir, StatusDir: dir}} {
		if d, err := NewDir(context.Background(), o); err == nil {
			d.Close()
			t.Errorf("NewDir(%+v) succeeded", o)
		}
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
