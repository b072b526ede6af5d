package source

import (
	"bytes"
	"encoding/binary"

	"github.com/siteops/siteops/internal/gitfs"
)

// A status commit changes a few entries of trees that hold one entry per
// site: the status directory (43 bytes a site) and, when the site files
// sit at the repository's root, the root tree. Sent whole, each is
// megabytes at 50,000 sites, compressed by siteops and unpacked by the
// server at every commit. The pack sent gives such a tree as a delta on
// its previous version, which the remote holds (a REF_DELTA entry, as
// `git push` sends a thin pack): the entries that did not change are
// copied from it. The delta format is Git's (git/diff-delta.c,
// git/patch-delta.c): the sizes of the base and of the result as base-128
// varints, then instructions: a copy of a range of the base, or bytes to
// insert (1 to 127).

const (
	// deltaFrom is the size from which a tree is sent as a delta.
	deltaFrom = 4096
	// maxDeltaCopy is the most one copy instruction copies here (Git's
	// encoder too stays under 64 KiB a copy).
	maxDeltaCopy = 0xffff
	// maxDeltaInsert is the most one insert instruction holds.
	maxDeltaInsert = 0x7f
)

// treeDelta returns target, the content of a tree object, as a delta on
// base, the content of another; nil when target is small, either is
// malformed, or the delta would not be much smaller than target. Both
// are walked once, entry by entry, in their (shared) order: entries equal
// in both are copied, the others inserted.
func treeDelta(base, target []byte) []byte {
	if len(target) < deltaFrom || len(base) == 0 {
		return nil
	}
	d := deltaWriter{out: make([]byte, 0, 256)}
	d.out = binary.AppendUvarint(d.out, uint64(len(base)))
	d.out = binary.AppendUvarint(d.out, uint64(len(target)))
	b := 0
	for t := 0; t < len(target); {
		te, tEnd, err := gitfs.RawEntryAt(target, t)
		if err != nil {
			return nil
		}
		// Skip the base's entries that sort before this one: removed
		// or changed.
		var bEnd int
		for b < len(base) {
			be, end, err := gitfs.RawEntryAt(base, b)
			if err != nil {
				return nil
			}
			if gitfs.CompareRawNames(be.Name, be.IsDir(), te.Name, te.IsDir()) >= 0 {
				bEnd = end
				break
			}
			b = end
		}
		if b < len(base) && bytes.Equal(base[b:bEnd], target[t:tEnd]) {
			d.copy(b, bEnd-b)
			b = bEnd
		} else {
			d.insert(target[t:tEnd])
		}
		t = tEnd
		if len(d.out) > len(target)/2 {
			return nil
		}
	}
	d.flush()
	if len(d.out) > len(target)/2 {
		return nil
	}
	return d.out
}

// deltaWriter writes delta instructions, joining a copy that follows the
// last one in the base, and inserts that follow each other.
type deltaWriter struct {
	out []byte
	// A copy of n bytes of the base from off, or bytes to insert, not
	// written yet.
	off, n  int
	pending []byte
}

func (d *deltaWriter) copy(off, n int) {
	if len(d.pending) > 0 {
		d.flush()
	}
	if d.n > 0 && d.off+d.n == off {
		d.n += n
		return
	}
	d.flush()
	d.off, d.n = off, n
}

func (d *deltaWriter) insert(data []byte) {
	if d.n > 0 {
		d.flush()
	}
	d.pending = append(d.pending, data...)
}

// flush writes what is pending.
func (d *deltaWriter) flush() {
	for d.n > 0 {
		n := min(d.n, maxDeltaCopy)
		d.out = appendDeltaCopy(d.out, d.off, n)
		d.off += n
		d.n -= n
	}
	for p := d.pending; len(p) > 0; {
		n := min(len(p), maxDeltaInsert)
		d.out = append(d.out, byte(n))
		d.out = append(d.out, p[:n]...)
		p = p[n:]
	}
	d.pending = d.pending[:0]
}

// appendDeltaCopy appends the instruction that copies n bytes (0 < n <
// 2^24) of the base from off (< 2^32): a byte whose bits say which bytes
// of the offset and size follow, little-endian, zeros left out.
func appendDeltaCopy(out []byte, off, n int) []byte {
	at := len(out)
	cmd := byte(0x80)
	out = append(out, 0)
	for i := range 4 {
		if v := byte(off >> (8 * i)); v != 0 {
			cmd |= 1 << i
			out = append(out, v)
		}
	}
	for i := range 3 {
		if v := byte(n >> (8 * i)); v != 0 {
			cmd |= 0x10 << i
			out = append(out, v)
		}
	}
	out[at] = cmd
	return out
}
