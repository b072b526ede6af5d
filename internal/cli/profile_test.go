package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --cpuprofile and --memprofile write profiles, on any
// command, and stay out of the help.
func TestProfileFlags(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"render", "--cpuprofile", cpu, "--memprofile", mem, "--root", "../..", "../../examples/fleet"}, &out, &errb)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, p := range []string{cpu, mem} {
		// A profile is a gzip-compressed protocol buffer.
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) < 20 || data[0] != 0x1f || data[1] != 0x8b {
			t.Errorf("%s is not a profile (%d bytes)", filepath.Base(p), len(data))
		}
	}
	out.Reset()
	Main(context.Background(), []string{"render", "--help"}, &out, &errb)
	if strings.Contains(out.String(), "cpuprofile") || strings.Contains(out.String(), "memprofile") {
		t.Errorf("the profile flags show in the help:\n%s", out.String())
	}
}
