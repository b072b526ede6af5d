package source

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/siteops/siteops/internal/gitfs"
	"github.com/siteops/siteops/internal/parallel"
)

// statusTree is the status directory as the Git source last built it:
// per directory, its entries sorted as Git sorts them and its tree object
// as last encoded. A write hashes the files that changed and encodes
// again only the directories above them, so that its cost follows the
// change, not the fleet. The trees are those a full rewrite gives, byte
// for byte.
type statusTree struct {
	// at is the content of the StatusFiles the tree holds; zero when it
	// holds none (the next update reads every file).
	at   statusGeneration
	root *treeDir
}

// treeDir is one directory of the status tree.
type treeDir struct {
	// entries are sorted as Git sorts a tree: a directory as if its name
	// ended in "/". The hash of a directory entry is set when it is
	// encoded.
	entries []object.TreeEntry
	dirs    map[string]*treeDir
	// obj is the directory's tree object; nil when an entry changed
	// since it was encoded. pushed is its tree object as last pushed
	// (or found on the remote): the next push sends obj as a delta on
	// it.
	obj, pushed *rawObject
}

// rawObject is a Git object, encoded: data, or for a status file its
// content compressed as a pack entry holds it (z) and its size.
type rawObject struct {
	typ  plumbing.ObjectType
	hash plumbing.Hash
	data []byte
	z    []byte
	size int
}

// content returns the object's data, decompressing a status file's.
func (o *rawObject) content() ([]byte, error) {
	if o.z == nil {
		return o.data, nil
	}
	return StatusFile{hash: o.hash, size: o.size, z: o.z}.Data()
}

func newRawObject(typ plumbing.ObjectType, data []byte) *rawObject {
	return &rawObject{typ: typ, hash: plumbing.ComputeHash(typ, data), data: data}
}

// blobObject is the blob of a status file.
func blobObject(f StatusFile) *rawObject {
	return &rawObject{typ: plumbing.BlobObject, hash: f.hash, z: f.z, size: f.size}
}

// update brings the tree to the content of files. It returns the paths
// that changed, or all=true when it read every file (the first update,
// another set, or one whose changes it could not follow).
func (t *statusTree) update(files *StatusFiles) (changed []string, all bool, err error) {
	changed, ok := files.changedSince(t.at)
	if !ok {
		all = true
		t.root = &treeDir{}
		changed = files.Paths()
	}
	t.at = statusGeneration{}
	for _, p := range changed {
		if err := checkStatusPath(p); err != nil {
			return nil, all, err
		}
	}
	// Removals first: a file that becomes a directory, or the reverse,
	// is removed before it is made again.
	for _, p := range changed {
		if !files.Has(p) {
			t.root.remove(strings.Split(p, "/"))
		}
	}
	for _, p := range changed {
		if f, ok := files.file(p); ok {
			if err := t.root.set(p, strings.Split(p, "/"), f.hash); err != nil {
				return nil, all, err
			}
		}
	}
	t.at = files.generation()
	return changed, all, nil
}

// find returns the index of the entry called name, and whether there is
// one.
func (d *treeDir) find(name string) (int, bool) {
	if i, ok := d.search(name, false); ok {
		return i, true
	}
	return d.search(name, true)
}

// search looks for name as a file or as a directory: the index where it
// is or would be.
func (d *treeDir) search(name string, dir bool) (int, bool) {
	key := gitKey(name, dir)
	return slices.BinarySearchFunc(d.entries, key, func(e object.TreeEntry, key string) int {
		return strings.Compare(gitKey(e.Name, e.Mode == filemode.Dir), key)
	})
}

// gitKey is the name a tree entry sorts by.
func gitKey(name string, dir bool) string {
	if dir {
		return name + "/"
	}
	return name
}

// set makes the file at elems (path p) hold the blob h.
func (d *treeDir) set(p string, elems []string, h plumbing.Hash) error {
	d.obj = nil
	name := elems[0]
	if len(elems) == 1 {
		if i, ok := d.search(name, true); ok && d.entries[i].Mode == filemode.Dir {
			return fmt.Errorf("status file %q is also a directory", p)
		}
		i, ok := d.search(name, false)
		e := object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h}
		if ok {
			d.entries[i] = e
		} else {
			d.entries = slices.Insert(d.entries, i, e)
		}
		return nil
	}
	if _, ok := d.search(name, false); ok {
		rest := strings.Join(elems[1:], "/")
		return fmt.Errorf("status file %q is also a directory", p[:len(p)-len(rest)-1])
	}
	sub := d.dirs[name]
	if sub == nil {
		sub = &treeDir{}
		if d.dirs == nil {
			d.dirs = map[string]*treeDir{}
		}
		d.dirs[name] = sub
		i, _ := d.search(name, true)
		d.entries = slices.Insert(d.entries, i, object.TreeEntry{Name: name, Mode: filemode.Dir})
	}
	return sub.set(p, elems[1:], h)
}

// remove removes the file at elems, and the directories that leaves
// empty.
func (d *treeDir) remove(elems []string) {
	name := elems[0]
	if len(elems) == 1 {
		if i, ok := d.search(name, false); ok {
			d.entries = slices.Delete(d.entries, i, i+1)
			d.obj = nil
		}
		return
	}
	sub := d.dirs[name]
	if sub == nil {
		return
	}
	sub.remove(elems[1:])
	if sub.obj == nil {
		d.obj = nil
	}
	if len(sub.entries) == 0 {
		delete(d.dirs, name)
		if i, ok := d.search(name, true); ok {
			d.entries = slices.Delete(d.entries, i, i+1)
		}
	}
}

// build encodes the directories that changed, bottom up, passing each
// new tree object to made, and returns the tree's hash: zero when the
// directory is empty.
func (d *treeDir) build(made func(*rawObject)) plumbing.Hash {
	if len(d.entries) == 0 {
		return plumbing.ZeroHash
	}
	if d.obj == nil {
		for i, e := range d.entries {
			if e.Mode == filemode.Dir {
				d.entries[i].Hash = d.dirs[e.Name].build(made)
			}
		}
		d.obj = newRawObject(plumbing.TreeObject, encodeTree(d.entries))
		made(d.obj)
	}
	return d.obj.hash
}

// markPushed records that the remote holds every directory as built.
func (d *treeDir) markPushed() {
	_ = d.walk("", func(_ string, d *treeDir) error {
		d.pushed = d.obj
		return nil
	})
}

// walk calls fn with every directory under d, d included, and its path
// relative to the status directory ("" for the directory itself).
func (d *treeDir) walk(dir string, fn func(dir string, d *treeDir) error) error {
	if err := fn(dir, d); err != nil {
		return err
	}
	for _, e := range d.entries {
		if e.Mode == filemode.Dir {
			if err := d.dirs[e.Name].walk(joinPath(dir, e.Name), fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// fileHash returns the blob of the file at elems, and whether there is
// one.
func (d *treeDir) fileHash(elems []string) (plumbing.Hash, bool) {
	for _, name := range elems[:len(elems)-1] {
		if d = d.dirs[name]; d == nil {
			return plumbing.ZeroHash, false
		}
	}
	i, ok := d.search(elems[len(elems)-1], false)
	if !ok {
		return plumbing.ZeroHash, false
	}
	return d.entries[i].Hash, true
}

// path returns the directories from d down to the one holding the file
// at elems, d first; those missing are left out.
func (d *treeDir) path(elems []string) []*treeDir {
	out := []*treeDir{d}
	for _, name := range elems[:len(elems)-1] {
		if d = d.dirs[name]; d == nil {
			break
		}
		out = append(out, d)
	}
	return out
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// encodeTree writes entries (sorted) as a Git tree object's content.
func encodeTree(entries []object.TreeEntry) []byte {
	n := 0
	for _, e := range entries {
		n += len(e.Name) + 8 + len(e.Hash)
	}
	b := make([]byte, 0, n)
	for _, e := range entries {
		b = gitfs.AppendRawEntry(b, e.Mode, e.Name, e.Hash)
	}
	return b
}

// encodeCommit writes a commit as Git does.
func encodeCommit(c *object.Commit) (*rawObject, error) {
	obj := &plumbing.MemoryObject{}
	if err := c.Encode(obj); err != nil {
		return nil, err
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return newRawObject(plumbing.CommitObject, data), nil
}

// packLevel is the compression of the packs siteops makes: status files
// are pushed as they change, so speed matters more than a few bytes.
const packLevel = zlib.BestSpeed

// zlibWriters keeps compressors between writes: each holds about 1 MB of
// tables, and a one-site status commit compresses half a dozen objects.
var zlibWriters = sync.Pool{New: func() any {
	zw, _ := zlib.NewWriterLevel(io.Discard, packLevel)
	return zw
}}

// zlibWriter returns a compressor at packLevel writing to w; putZlib
// gives it back once closed.
func zlibWriter(w io.Writer) *zlib.Writer {
	zw := zlibWriters.Get().(*zlib.Writer)
	zw.Reset(w)
	return zw
}

func putZlib(zw *zlib.Writer) {
	zw.Reset(io.Discard) // forget the writer it wrote to
	zlibWriters.Put(zw)
}

// appendCompressed appends data compressed at packLevel, as a pack entry
// holds it, to dst.
func appendCompressed(dst, data []byte) []byte {
	buf := bytes.NewBuffer(dst)
	zw := zlibWriter(buf)
	// Compressing into memory cannot fail.
	zw.Write(data)
	zw.Close()
	putZlib(zw)
	return buf.Bytes()
}

// writePack writes objs to w as a pack file (version 2): an object with
// a base in bases as a delta on it when that is much smaller (a thin
// pack, for a remote that holds the bases). It returns the number of
// deltas written. Entries are compressed on every core, packChunk at a
// time, and written in order: the first status of a large fleet is tens
// of thousands of objects, and compressing them is most of building its
// commit. With ix set, it also adds every object to ix, for the pack's
// index. w keeps its errors: a bytes.Buffer has none, and a bufio.Writer
// returns the first from Flush.
func writePack(w io.Writer, objs []*rawObject, bases map[plumbing.Hash]*rawObject, ix *idxfile.Writer) int {
	out := &packOut{w: w, sum: sha1.New()}
	var hdr [12]byte
	copy(hdr[:], "PACK")
	binary.BigEndian.PutUint32(hdr[4:], 2)
	binary.BigEndian.PutUint32(hdr[8:], uint32(len(objs)))
	out.write(hdr[:])
	if ix != nil {
		ix.OnHeader(uint32(len(objs)))
	}
	deltas := 0
	entries := make([]packEntry, min(len(objs), packChunk))
	for len(objs) > 0 {
		chunk := objs[:min(len(objs), packChunk)]
		objs = objs[len(chunk):]
		parallel.Each(len(chunk), packParallelMin, func(i int) { entries[i].encode(chunk[i], bases) })
		for i := range chunk {
			e := &entries[i]
			if e.delta {
				deltas++
			}
			if ix != nil {
				ix.Add(chunk[i].hash, out.n, crc32.ChecksumIEEE(e.data))
			}
			out.write(e.data)
		}
	}
	var sum plumbing.Hash
	out.sum.Sum(sum[:0])
	if ix != nil {
		ix.OnFooter(sum)
	}
	w.Write(sum[:])
	return deltas
}

// packOut is where writePack writes: the pack's writer, the running
// checksum of what was written and its length.
type packOut struct {
	w   io.Writer
	sum hash.Hash
	n   uint64
}

func (o *packOut) write(p []byte) {
	o.w.Write(p)
	o.sum.Write(p)
	o.n += uint64(len(p))
}

// packChunk is how many entries writePack compresses before writing
// them, and packParallelMin the number of entries in a chunk from which
// it uses more than one core.
const (
	packChunk       = 1024
	packParallelMin = 64
)

// packEntry is one object as a pack holds it: header, base and
// compressed data. Its buffer is reused from chunk to chunk.
type packEntry struct {
	data  []byte
	delta bool
}

func (e *packEntry) encode(o *rawObject, bases map[plumbing.Hash]*rawObject) {
	if o.z != nil {
		e.delta = false
		e.data = appendObjectHeader(e.data[:0], o.typ, o.size)
		e.data = append(e.data, o.z...)
		return
	}
	typ, data := o.typ, o.data
	var delta []byte
	base, ok := bases[o.hash]
	if ok {
		delta = treeDelta(base.data, o.data)
	}
	e.delta = delta != nil
	if e.delta {
		typ, data = plumbing.REFDeltaObject, delta
	}
	e.data = appendObjectHeader(e.data[:0], typ, len(data))
	if e.delta {
		e.data = append(e.data, base.hash[:]...)
	}
	e.data = appendCompressed(e.data, data)
}

// appendObjectHeader appends the header of a pack entry: the type and
// the size, seven bits a byte after the first four.
func appendObjectHeader(b []byte, typ plumbing.ObjectType, size int) []byte {
	c := byte(typ)<<4 | byte(size&0x0f)
	size >>= 4
	for size > 0 {
		b = append(b, c|0x80)
		c = byte(size & 0x7f)
		size >>= 7
	}
	return append(b, c)
}

// packOf returns the pack file of objs, with deltas on bases, and the
// number of deltas in it; with ix set, it adds the objects to ix (see
// writePack).
func packOf(objs []*rawObject, bases map[plumbing.Hash]*rawObject, ix *idxfile.Writer) ([]byte, int) {
	// About what the objects compress to, so that the buffer does not
	// grow by doubling through tens of megabytes; a tree sent as a delta
	// on its previous version is a few bytes a changed entry.
	size := 0
	for _, o := range objs {
		if _, ok := bases[o.hash]; ok {
			size += len(o.data)/64 + 64
		} else if o.z != nil {
			size += len(o.z) + 16
		} else {
			size += len(o.data)/4 + 32
		}
	}
	b := bytes.NewBuffer(make([]byte, 0, size))
	deltas := writePack(b, objs, bases, ix)
	return b.Bytes(), deltas
}
