package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNamedPipeInTheFleet: a named pipe among the site files is refused
// with its path by render, check and run, which go on with the other
// sites; none of them blocks on it.
func TestNamedPipeInTheFleet(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.yaml": site("alpha")})
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	const want = "pipe.yaml is a named pipe, not a file"
	tests := []struct {
		name      string
		args      []string
		wantCode  int
		wantAlpha string // what shows the other site was handled
	}{
		{"render", []string{"render", "--root", dir, dir}, ExitFailure, "name: alpha"},
		{"check", []string{"check", "--root", dir, dir}, ExitFailure, "1 site checked"},
		{"run", []string{"run", "--dir", dir, "--state-dir", t.TempDir(), "--listen", "", "--speed", "max",
			"--until-installed", "--timeout", "1m"}, ExitFailure, "site=alpha"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runBounded(t, tt.args...)
			if tt.name == "run" { // the loop lists the problem in the status README
				readme, _ := os.ReadFile(filepath.Join(dir, "status", "README.md"))
				stdout = string(readme)
			}
			if code != tt.wantCode || !strings.Contains(stdout+stderr, want) || !strings.Contains(stdout+stderr, tt.wantAlpha) {
				t.Errorf("exit %d (want %d); output lacks %q or %q:\n%s\n%s", code, tt.wantCode, want, tt.wantAlpha, stdout, stderr)
			}
		})
	}
}

// TestRunTimeoutCoversTheFirstClone: --timeout bounds the whole run, the
// first fetch of an unanswering repository included.
func TestRunTimeoutCoversTheFirstClone(t *testing.T) {
	l := listenSilently(t)
	_, stderr, code := runBounded(t, "run", "--repo", "http://"+l+"/fleet.git", "--state-dir", t.TempDir(),
		"--listen", "", "--timeout", "2s")
	if code != ExitFailure || !strings.Contains(stderr, "--timeout") && !strings.Contains(stderr, "did not answer") {
		t.Errorf("exit %d, want %d with the timeout named:\n%s", code, ExitFailure, stderr)
	}
}

// runBounded runs siteops in-process and fails the test, rather than
// hanging, when it does not return within a minute.
func runBounded(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	type result struct {
		out, err string
		code     int
	}
	done := make(chan result, 1)
	go func() {
		var out, errb syncBuffer
		code := Main(context.Background(), args, &out, &errb)
		done <- result{out.String(), errb.String(), code}
	}()
	select {
	case r := <-done:
		return r.out, r.err, r.code
	case <-time.After(time.Minute):
		t.Fatalf("siteops %s did not return within a minute", strings.Join(args, " "))
	}
	return "", "", 0
}

// listenSilently accepts connections on loopback and never answers.
func listenSilently(t *testing.T) string {
	t.Helper()
	l, err := netListen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
			go io.Copy(io.Discard, c)
		}
	}()
	return l.Addr().String()
}
