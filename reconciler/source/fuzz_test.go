package source

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzWriteStatus writes arbitrary status files into a directory source:
// a name that is not a plain relative path is refused, anything written
// lands inside the status directory with its content, and nothing is ever
// written outside it. (The loop hides credentials when it encodes a
// document; reconciler tests and the planted-secrets test hold that.)
func FuzzWriteStatus(f *testing.F) {
	for _, seed := range []struct{ name, content string }{
		{"site.yaml", "phase: Installed\n"},
		{"README.md", "| site | phase |\n"},
		{"../escape.yaml", "x"},
		{"/abs.yaml", "x"},
		{"a/../../b.yaml", "x"},
		{"nested/dir/s.yaml", "bmc: redfish://root:calvin@10.0.0.1/x\n"},
		{".", ""},
		{"a\x00b", "x"},
	} {
		f.Add(seed.name, []byte(seed.content))
	}
	top := f.TempDir()
	fleet := filepath.Join(top, "fleet")
	if err := os.MkdirAll(fleet, 0o755); err != nil {
		f.Fatal(err)
	}
	d, err := NewDir(context.Background(), DirOptions{Dir: fleet})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { d.Close() })
	statusDir := filepath.Join(fleet, DefaultStatusDir)
	f.Fuzz(func(t *testing.T, name string, content []byte) {
		_, err := d.WriteStatus(context.Background(), StatusFilesOf(map[string][]byte{name: content}), "fuzz")
		if err != nil {
			return
		}
		if !fs.ValidPath(name) || name == "." {
			t.Fatalf("WriteStatus accepted %q", name)
		}
		got, err := os.ReadFile(filepath.Join(statusDir, filepath.FromSlash(name)))
		if err != nil {
			t.Fatalf("%q written but not found: %v", name, err)
		}
		if !bytes.Equal(got, content) {
			t.Fatalf("%q holds %q, want %q", name, got, content)
		}
		// Nothing but the fleet directory at the top.
		entries, _ := os.ReadDir(top)
		for _, e := range entries {
			if e.Name() != "fleet" {
				t.Fatalf("%q wrote %s outside the status directory", name, e.Name())
			}
		}
		fleetEntries, _ := os.ReadDir(fleet)
		for _, e := range fleetEntries {
			if e.Name() != DefaultStatusDir && !strings.HasPrefix(e.Name(), ".") {
				t.Fatalf("%q wrote %s beside the status directory", name, e.Name())
			}
		}
	})
}
