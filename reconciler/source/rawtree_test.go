package source

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestSpliceRawTree checks that splicing the status directory into a raw
// tree gives the tree that decoding its entries, replacing the one entry,
// sorting and encoding them gives, in every position the entry can take.
func TestSpliceRawTree(t *testing.T) {
	h := func(b byte) plumbing.Hash { return plumbing.Hash{b, 1, 2} }
	file := func(name string) object.TreeEntry {
		return object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h(name[0])}
	}
	dir := func(name string) object.TreeEntry {
		return object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h(name[0] + 1)}
	}
	exec := object.TreeEntry{Name: "run.sh", Mode: filemode.Executable, Hash: h(9)}
	tests := []struct {
		name    string
		entries []object.TreeEntry
		sub     plumbing.Hash
	}{
		{name: "empty tree", sub: h(7)},
		{name: "empty tree, removed", sub: plumbing.ZeroHash},
		{name: "added first", entries: []object.TreeEntry{file("zz.yaml")}, sub: h(7)},
		{name: "added last", entries: []object.TreeEntry{file("a.yaml"), exec}, sub: h(7)},
		{name: "added between a file sorting before and one after", entries: []object.TreeEntry{file("status.yaml"), file("status0")}, sub: h(7)},
		{name: "added among sites", entries: []object.TreeEntry{dir("extra-manifests"), file("kustomization.yaml"), file("sno-1.yaml"), file("sno-2.yaml")}, sub: h(7)},
		{name: "replaced", entries: []object.TreeEntry{file("a.yaml"), dir("status"), file("z.yaml")}, sub: h(7)},
		{name: "removed", entries: []object.TreeEntry{file("a.yaml"), dir("status"), file("z.yaml")}, sub: plumbing.ZeroHash},
		{name: "a file of the name replaced by the directory", entries: []object.TreeEntry{file("status"), file("status.yaml"), file("t")}, sub: h(7)},
		{name: "a directory that sorts near", entries: []object.TreeEntry{dir("status-old"), file("status.md"), dir("statusx")}, sub: h(7)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// What decoding, replacing and encoding gives.
			var want []object.TreeEntry
			for _, e := range tt.entries {
				if e.Name != "status" {
					want = append(want, e)
				}
			}
			if !tt.sub.IsZero() {
				want = append(want, object.TreeEntry{Name: "status", Mode: filemode.Dir, Hash: tt.sub})
			}
			slices.SortFunc(want, func(a, b object.TreeEntry) int {
				return strings.Compare(gitKey(a.Name, a.Mode == filemode.Dir), gitKey(b.Name, b.Mode == filemode.Dir))
			})
			got, err := spliceRawTree(encodeTree(tt.entries), "status", tt.sub)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, encodeTree(want)) {
				t.Errorf("spliceRawTree:\n got %q\nwant %q", got, encodeTree(want))
			}
			gotDir, err := rawEntryDir(encodeTree(tt.entries), "status")
			if err != nil {
				t.Fatal(err)
			}
			var wantDir plumbing.Hash
			for _, e := range tt.entries {
				if e.Name == "status" && e.Mode == filemode.Dir {
					wantDir = e.Hash
				}
			}
			if gotDir != wantDir {
				t.Errorf("rawEntryDir = %s, want %s", gotDir, wantDir)
			}
		})
	}
}

// TestRawTreeMalformed checks that a tree object that is not one is an
// error, not a panic.
func TestRawTreeMalformed(t *testing.T) {
	for _, data := range []string{"100644 name", "100644 name\x00short", "1x0644 name\x00" + strings.Repeat("a", 20), "nospace\x00" + strings.Repeat("a", 20)} {
		if _, err := spliceRawTree([]byte(data), "status", plumbing.Hash{1}); err == nil {
			t.Errorf("spliceRawTree(%q): no error", data)
		}
		if _, err := rawEntryDir([]byte(data), "zzz"); err == nil {
			t.Errorf("rawEntryDir(%q): no error", data)
		}
	}
}
