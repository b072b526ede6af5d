package source

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/siteops/siteops/internal/gitfs"
	"github.com/siteops/siteops/internal/gittest"
)

// A pack over several chunks, with status files, plain blobs and trees
// sent as deltas on bases the remote holds, is one go-git reads whole
// (its thin form, given the bases) and git verifies with its index (its
// whole form, as the clone stores it).
func TestPackOverChunks(t *testing.T) {
	var objs []*rawObject
	for i := range 2*packChunk + 3 {
		data := fmt.Appendf(nil, "site: s%05d\nphase: Installing\n", i)
		if i%2 == 0 {
			objs = append(objs, blobObject(NewStatusFile(data)))
		} else {
			objs = append(objs, newRawObject(plumbing.BlobObject, data))
		}
	}
	bases := map[plumbing.Hash]*rawObject{}
	var baseObjs []*rawObject
	for i := range 3 {
		var old, cur []byte
		for j := range 200 {
			h := plumbing.ComputeHash(plumbing.BlobObject, fmt.Appendf(nil, "%d/%d", i, j))
			name := fmt.Sprintf("s%05d.yaml", j)
			old = gitfs.AppendRawEntry(old, filemode.Regular, name, h)
			if j == 100 {
				h = plumbing.ComputeHash(plumbing.BlobObject, []byte("changed"))
			}
			cur = gitfs.AppendRawEntry(cur, filemode.Regular, name, h)
		}
		base, tree := newRawObject(plumbing.TreeObject, old), newRawObject(plumbing.TreeObject, cur)
		bases[tree.hash] = base
		baseObjs = append(baseObjs, base)
		// Trees among the blobs, so that deltas fall in every chunk.
		objs = append(objs[:i*packChunk+1], append([]*rawObject{tree}, objs[i*packChunk+1:]...)...)
	}

	thin, deltas := packOf(objs, bases, nil)
	if deltas != len(bases) {
		t.Errorf("%d deltas, want %d", deltas, len(bases))
	}
	st := memory.NewStorage()
	for _, b := range baseObjs {
		o := st.NewEncodedObject()
		o.SetType(b.typ)
		w, _ := o.Writer()
		w.Write(b.data)
		w.Close()
		if _, err := st.SetEncodedObject(o); err != nil {
			t.Fatal(err)
		}
	}
	if err := packfile.UpdateObjectStorage(st, bytes.NewReader(thin)); err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		got, err := st.EncodedObject(plumbing.AnyObject, o.hash)
		if err != nil {
			t.Fatalf("%s: %v", o.hash, err)
		}
		want, _ := o.content()
		r, _ := got.Reader()
		data, _ := io.ReadAll(r)
		if !bytes.Equal(data, want) {
			t.Fatalf("%s reads back differently", o.hash)
		}
	}

	var ix idxfile.Writer
	whole, deltas := packOf(objs, nil, &ix)
	if deltas != 0 {
		t.Errorf("the whole pack has %d deltas", deltas)
	}
	index, err := ix.Index()
	if err != nil {
		t.Fatal(err)
	}
	// The pack stored from memory and the one written as it is
	// compressed are the same file.
	for name, fill := range map[string]func(io.Writer) (*idxfile.MemoryIndex, error){
		"from memory": bytesFill(whole, index), "compressed into the file": packFill(objs),
	} {
		repo := t.TempDir()
		gittest.Git(t, repo, "init", "-q", "--bare")
		objects := filepath.Join(repo, "objects")
		if err := writePackFiles(objects, fill); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		base := filepath.Join(objects, "pack", "pack-"+plumbing.Hash(index.PackfileChecksum).String())
		gittest.Git(t, repo, "verify-pack", base+".idx")
		if got, err := os.ReadFile(base + ".pack"); err != nil || !bytes.Equal(got, whole) {
			t.Errorf("%s: the pack stored differs from the one made in memory (%v)", name, err)
		}
		if left, _ := filepath.Glob(filepath.Join(objects, "pack", "tmp_*")); len(left) > 0 {
			t.Errorf("%s: temporary files left: %v", name, left)
		}
	}
	if n, _ := index.Count(); n != int64(len(objs)) {
		t.Errorf("the index holds %d objects, want %d", n, len(objs))
	}
}
