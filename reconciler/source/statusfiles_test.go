package source

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func TestStatusFilesChangedSince(t *testing.T) {
	f := NewStatusFiles()
	f.Set("a.yaml", []byte("a"))
	f.Set("b.yaml", []byte("b"))
	start := f.generation()
	steps := []struct {
		name    string
		change  func()
		want    []string
		changed bool
	}{
		{"nothing", func() {}, []string{}, false},
		{"same content", func() { f.Set("a.yaml", []byte("a")) }, []string{}, false},
		{"removing what is not there", func() { f.Delete("zz.yaml") }, []string{}, false},
		{"changed twice, listed once", func() { f.Set("b.yaml", []byte("b2")); f.Set("b.yaml", []byte("b3")) }, []string{"b.yaml"}, true},
		{"new and removed", func() { f.Set("c.yaml", []byte("c")); f.Delete("a.yaml") }, []string{"a.yaml", "c.yaml"}, true},
		{"empty content is a file", func() { f.Set("d.yaml", nil) }, []string{"d.yaml"}, true},
	}
	for _, step := range steps {
		before := f.generation()
		step.change()
		got, ok := f.changedSince(before)
		if !ok || !slices.Equal(got, step.want) {
			t.Errorf("%s: changedSince = %q, %v; want %q", step.name, got, ok, step.want)
		}
		if moved := f.generation() != before; moved != step.changed {
			t.Errorf("%s: generation moved = %v, want %v", step.name, moved, step.changed)
		}
	}
	if got, _ := f.changedSince(start); !slices.Equal(got, []string{"a.yaml", "b.yaml", "c.yaml", "d.yaml"}) {
		t.Errorf("changed since the start = %q", got)
	}
	if data, ok, err := f.Get("d.yaml"); !ok || err != nil || data == nil || len(data) != 0 {
		t.Errorf("d.yaml = %q, %v, %v; want an empty file", data, ok, err)
	}
	if _, ok := NewStatusFiles().changedSince(start); ok {
		t.Error("another set answered for this one's generation")
	}
	if _, ok := f.changedSince(statusGeneration{}); ok {
		t.Error("the zero generation was answered: a source that never wrote must read every file")
	}
}

// TestStatusFilesForgetsOldChanges has the log of changes grow past its
// bound: a source that wrote before then is told to read every file, one
// that wrote since still gets the changes.
func TestStatusFilesForgetsOldChanges(t *testing.T) {
	f := NewStatusFiles()
	f.Set("a.yaml", []byte("a"))
	old := f.generation()
	var recent statusGeneration
	for i := range 3000 {
		if i == 2900 {
			recent = f.generation()
		}
		f.Set("a.yaml", fmt.Appendf(nil, "a%d", i))
	}
	if _, ok := f.changedSince(old); ok {
		t.Error("changes older than the log still answered")
	}
	if got, ok := f.changedSince(recent); !ok || !slices.Equal(got, []string{"a.yaml"}) {
		t.Errorf("recent changes = %q, %v", got, ok)
	}
	if len(f.log) > 4*f.Len()+1024 {
		t.Errorf("the log holds %d changes for %d files", len(f.log), f.Len())
	}
}

// A status file gives back what it was made of, names the blob Git
// names, and is what a pack entry holds after its header.
func TestStatusFileRoundTrip(t *testing.T) {
	for _, data := range [][]byte{nil, {}, []byte("phase: Installed\n"), bytes.Repeat([]byte("findings: []\n"), 5000)} {
		f := NewStatusFile(data)
		got, err := f.Data()
		if err != nil || !bytes.Equal(got, data) || got == nil {
			t.Errorf("%d bytes: got %d bytes back, %v", len(data), len(got), err)
		}
		if want := plumbing.ComputeHash(plumbing.BlobObject, data); f.hash != want {
			t.Errorf("%d bytes: hash %s, want %s", len(data), f.hash, want)
		}
		var e packEntry
		e.encode(&rawObject{typ: plumbing.BlobObject, data: data}, nil)
		var fromFile packEntry
		fromFile.encode(blobObject(f), nil)
		if !bytes.Equal(e.data, fromFile.data) {
			t.Errorf("%d bytes: the pack entry of the status file differs from the blob's", len(data))
		}
		if !f.Equal(NewStatusFile(data)) || f.Equal(NewStatusFile(append(slices.Clone(data), 'x'))) || f.Equal(StatusFile{}) {
			t.Errorf("%d bytes: Same does not compare content", len(data))
		}
	}
	files := NewStatusFiles()
	if !files.Put("zero.yaml", StatusFile{}) || files.Put("zero.yaml", NewStatusFile(nil)) {
		t.Error("the zero StatusFile is not an empty file")
	}
	if data, ok, err := files.Get("zero.yaml"); !ok || err != nil || data == nil || len(data) != 0 {
		t.Errorf("zero.yaml = %q, %v, %v; want an empty file", data, ok, err)
	}
	broken := NewStatusFile([]byte("phase: Installed\n"))
	broken.size++
	if _, err := broken.Data(); err == nil {
		t.Error("a status file shorter than its size was read back")
	}
}

// A status tree and a set of files that disagree stop the commit with an
// error naming the file, instead of pushing a blob that is not the file.
func TestStatusBlobRefusesAMismatch(t *testing.T) {
	files := NewStatusFiles()
	files.Set("a.yaml", []byte("a"))
	f, _ := files.file("a.yaml")
	if o, err := statusBlob(files, "a.yaml", f.hash); err != nil || o.hash != f.hash {
		t.Errorf("a.yaml: %v, %v", o, err)
	}
	for p, h := range map[string]plumbing.Hash{"b.yaml": f.hash, "a.yaml": plumbing.ZeroHash} {
		if _, err := statusBlob(files, p, h); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s held as %s: error %v", p, h, err)
		}
	}
}
