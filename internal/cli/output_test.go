package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A pipe is written through a buffer, which flush empties, and so does a
// write to stderr before its own; a file and a writer that is no file are
// written as they are.
func TestBufferPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	var stderr bytes.Buffer
	out, errOut, flush := bufferPipe(w, &stderr)
	if out == io.Writer(w) {
		t.Fatal("a pipe is written unbuffered")
	}
	if _, err := out.Write([]byte("site")); err != nil {
		t.Fatal(err)
	}
	r.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	buf := make([]byte, 16)
	if n, err := r.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read %q (%v) before the flush", buf[:n], err)
	}
	if err := flush(); err != nil {
		t.Fatal(err)
	}
	r.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "site" {
		t.Fatalf("read %q (%v) after the flush, want %q", buf[:n], err, "site")
	}
	out.Write([]byte("next"))
	if _, err := errOut.Write([]byte("problem")); err != nil || stderr.String() != "problem" {
		t.Fatalf("stderr got %q (%v)", stderr.String(), err)
	}
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "next" {
		t.Fatalf("read %q (%v) after a write to stderr, want %q", buf[:n], err, "next")
	}

	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b bytes.Buffer
	for _, w := range []io.Writer{f, &b} {
		if out, errOut, flush := bufferPipe(w, &stderr); out != w || errOut != io.Writer(&stderr) || flush() != nil {
			t.Errorf("%T is buffered", w)
		}
	}
}

// A render into a pipe writes all of its output, the same as into memory;
// with stderr on the same pipe (2>&1), a problem comes after the sites
// before it, as without the buffer.
func TestRenderIntoAPipe(t *testing.T) {
	args := []string{"render", "--root", "../..", "--extra-manifests-dir", "../../examples/extra-manifests", "../../examples/fleet"}
	var want, errb bytes.Buffer
	if code := Main(context.Background(), args, &want, &errb); code != ExitOK {
		t.Fatalf("render exited %d: %s", code, errb.String())
	}
	if got := throughPipe(t, args, false); !bytes.Equal(got, want.Bytes()) || !strings.Contains(string(got), "kind: BareMetalHost") {
		t.Errorf("through the pipe: %d bytes, want the %d written into memory", len(got), want.Len())
	}

	dir := t.TempDir()
	site := func(name string) string {
		return "apiVersion: ran.openshift.io/v1\nkind: SiteConfig\nmetadata:\n  name: " + name + "\n  namespace: " + name +
			"\nspec:\n  baseDomain: example.com\n  pullSecretRef: {name: ps}\n  clusterImageSetNameRef: img\n" +
			"  clusters:\n  - clusterName: " + name + "\n    nodes:\n    - hostName: n0\n" +
			"      bmcAddress: redfish-virtualmedia://10.0.0.1/redfish/v1/Systems/1\n      bmcCredentialsName: {name: bmc}\n" +
			"      bootMACAddress: \"00:00:00:00:00:01\"\n"
	}
	files := map[string]string{
		"a.yaml": site("first"),
		"b.yaml": "apiVersion: ran.openshift.io/v1\nkind: SiteConfig\nmetadata:\n  name: broken\nspec:\n  baseDomain: example.com\n",
		"c.yaml": site("last"),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := string(throughPipe(t, []string{"render", "--root", dir, filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml"), filepath.Join(dir, "c.yaml")}, true))
	first, problem, last := strings.Index(got, "name: first"), strings.Index(got, "b.yaml"), strings.Index(got, "name: last")
	if first < 0 || problem < 0 || last < 0 || !(first < problem && problem < last) {
		t.Errorf("the first site at %d, b.yaml's problem at %d, the last site at %d; want them in that order:\n%s", first, problem, last, got)
	}
}

// throughPipe runs siteops with its output, and its stderr too when
// withStderr is set, into one pipe, and returns what the pipe carried.
func throughPipe(t *testing.T, args []string, withStderr bool) []byte {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := make(chan []byte, 1)
	go func() {
		data, _ := io.ReadAll(r)
		got <- data
	}()
	var stderr io.Writer = io.Discard
	if withStderr {
		stderr = w
	}
	Main(context.Background(), args, w, stderr)
	w.Close()
	select {
	case data := <-got:
		return data
	case <-time.After(time.Minute):
		t.Fatal("the pipe's reader never saw the end of the output")
		return nil
	}
}
