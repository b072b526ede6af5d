package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --cpuprofile, --memprofile and --trace write profiles and a trace, on
// any command, and stay out of the help.
func TestProfileFlags(t *testing.T) {
	dir := t.TempDir()
	cpu, mem, trace := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof"), filepath.Join(dir, "run.trace")
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"render", "--cpuprofile", cpu, "--memprofile", mem, "--trace", trace, "--root", "../..", "../../examples/fleet"}, &out, &errb)
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
	// An execution trace starts with its header: "go 1.26 trace".
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if header, _, _ := bytes.Cut(data, []byte{0}); !bytes.HasPrefix(header, []byte("go 1.")) || !bytes.HasSuffix(header, []byte(" trace")) || len(data) < 1000 {
		t.Errorf("run.trace is not an execution trace (%d bytes, header %q)", len(data), header)
	}
	out.Reset()
	Main(context.Background(), []string{"render", "--help"}, &out, &errb)
	if strings.Contains(out.String(), "cpuprofile") || strings.Contains(out.String(), "memprofile") || strings.Contains(out.String(), "--trace") {
		t.Errorf("the profile flags show in the help:\n%s", out.String())
	}
}
