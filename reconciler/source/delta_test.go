package source

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// deltaTree is a tree of n files site-NNNNN.yaml, each hashing its name
// and version, and the directories dirs.
func deltaTree(n int, version map[int]int, drop map[int]bool, dirs ...string) []byte {
	var entries []object.TreeEntry
	for i := range n {
		if drop[i] {
			continue
		}
		name := fmt.Sprintf("site-%05d.yaml", i)
		h := plumbing.ComputeHash(plumbing.BlobObject, fmt.Appendf(nil, "%s %d", name, version[i]))
		entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h})
	}
	for _, d := range dirs {
		entries = append(entries, object.TreeEntry{Name: d, Mode: filemode.Dir, Hash: plumbing.ComputeHash(plumbing.TreeObject, []byte(d))})
	}
	slices.SortFunc(entries, func(a, b object.TreeEntry) int {
		return strings.Compare(gitKey(a.Name, a.Mode == filemode.Dir), gitKey(b.Name, b.Mode == filemode.Dir))
	})
	return encodeTree(entries)
}

func TestTreeDeltaRebuildsTheTarget(t *testing.T) {
	const n = 2000
	base := deltaTree(n, nil, nil, "pages")
	for _, tc := range []struct {
		name   string
		target []byte
		// most bounds the delta's size; 0: no delta.
		most int
	}{
		{"one entry changed", deltaTree(n, map[int]int{1234: 1}, nil, "pages"), 80},
		{"the first entry changed", deltaTree(n, map[int]int{0: 1}, nil, "pages"), 80},
		{"the directory changed", deltaTree(n, nil, nil, "pagez", "pages"), 120},
		{"an entry added", deltaTree(n+1, nil, nil, "pages"), 80},
		{"an entry removed", deltaTree(n, nil, map[int]bool{77: true}, "pages"), 80},
		{"a file sorting among directories", deltaTree(n, nil, nil, "pages", "site-00010.yaml.d"), 120},
		{"a hundred entries changed", deltaTree(n, func() map[int]int {
			m := map[int]int{}
			for i := 0; i < n; i += 20 {
				m[i] = 1
			}
			return m
		}(), nil, "pages"), 100 * 60},
		{"the same tree", base, 40},
		{"nothing in common", deltaTree(n, func() map[int]int {
			m := map[int]int{}
			for i := range n {
				m[i] = 1
			}
			return m
		}(), nil, "pages"), 0},
		{"too small to bother", deltaTree(10, map[int]int{3: 1}, nil), 0},
		{"malformed", append(bytes.Clone(base), "100644 x"...), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			delta := treeDelta(base, tc.target)
			if tc.most == 0 {
				if delta != nil {
					t.Fatalf("delta of %d bytes; want none", len(delta))
				}
				return
			}
			if delta == nil || len(delta) > tc.most {
				t.Fatalf("delta of %d bytes (nil: none); want at most %d", len(delta), tc.most)
			}
			got, err := packfile.PatchDelta(base, delta)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tc.target) {
				t.Errorf("the delta applied gives %d bytes, not the %d of the target", len(got), len(tc.target))
			}
		})
	}
}

func TestDeltaCopiesSplitAtTheirLimit(t *testing.T) {
	// A tree of 200,000 bytes copied whole needs several copies.
	base := deltaTree(5000, nil, nil)
	target := deltaTree(5000, map[int]int{4999: 1}, nil)
	delta := treeDelta(base, target)
	if delta == nil {
		t.Fatal("no delta")
	}
	got, err := packfile.PatchDelta(base, delta)
	if err != nil || !bytes.Equal(got, target) {
		t.Fatalf("the delta applied gives %d bytes, %v; want the target's %d", len(got), err, len(target))
	}
}
