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

// A pipe is written through a buffer, which flush empties; a file and a
// writer that is no file are written as they are.
func TestBufferPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	buffered, flush := bufferPipe(w)
	if buffered == io.Writer(w) {
		t.Fatal("a pipe is written unbuffered")
	}
	if _, err := buffered.Write([]byte("site")); err != nil {
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

	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b bytes.Buffer
	for _, out := range []io.Writer{f, &b} {
		if got, flush := bufferPipe(out); got != out || flush() != nil {
			t.Errorf("%T is buffered", out)
		}
	}
}

// A render into a pipe writes all of its output, the same as into memory.
func TestRenderIntoAPipe(t *testing.T) {
	args := []string{"render", "--root", "../..", "--extra-manifests-dir", "../../examples/extra-manifests", "../../examples/fleet"}
	var want, errb bytes.Buffer
	if code := Main(context.Background(), args, &want, &errb); code != ExitOK {
		t.Fatalf("render exited %d: %s", code, errb.String())
	}
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
	code := Main(context.Background(), args, w, io.Discard)
	w.Close()
	if code != ExitOK {
		t.Fatalf("render into a pipe exited %d", code)
	}
	select {
	case data := <-got:
		if !bytes.Equal(data, want.Bytes()) || !strings.Contains(string(data), "kind: BareMetalHost") {
			t.Errorf("through the pipe: %d bytes, want the %d written into memory", len(data), want.Len())
		}
	case <-time.After(time.Minute):
		t.Fatal("the pipe's reader never saw the end of the output")
	}
}
