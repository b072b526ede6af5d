package gitfs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// MaxObjectSize is the largest object a fetch may bring. go-git inflates
// every object of a fetched pack whole into memory while it indexes the
// pack, so a 3 GiB blob of zeros, 14 MB on the wire, would take 3 GiB of
// memory before any size limit on reading could refuse it. No file siteops
// reads is near this size (DefaultMaxFileSize).
const MaxObjectSize = 64 << 20

// ErrObjectTooLarge marks a fetch refused because the pack holds an object
// over MaxObjectSize.
var ErrObjectTooLarge = errors.New("the repository holds an object over the size limit")

// LimitedStorage is a filesystem storage whose fetched packs are checked
// before go-git indexes them: the pack is spooled to a temporary file in
// dir, the size of every object is read from its header (and, for a delta,
// the size of the object it makes, from the start of the delta), and a
// pack with an object over MaxObjectSize is refused whole.
type LimitedStorage struct {
	*filesystem.Storage
	dir string
}

// NewLimitedStorage wraps st; temporary files go to dir.
func NewLimitedStorage(st *filesystem.Storage, dir string) *LimitedStorage {
	return &LimitedStorage{Storage: st, dir: dir}
}

// PackfileWriter returns a writer whose Close checks the pack and only then
// hands it to the storage.
func (s *LimitedStorage) PackfileWriter() (io.WriteCloser, error) {
	f, err := os.CreateTemp(s.dir, ".siteops-pack-")
	if err != nil {
		return nil, err
	}
	return &checkedPack{f: f, st: s.Storage}, nil
}

type checkedPack struct {
	f  *os.File
	st *filesystem.Storage
}

func (p *checkedPack) Write(b []byte) (int, error) { return p.f.Write(b) }

func (p *checkedPack) Close() error {
	defer os.Remove(p.f.Name())
	defer p.f.Close()
	if _, err := p.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if err := checkPack(p.f); err != nil {
		return err
	}
	if _, err := p.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	w, err := p.st.PackfileWriter()
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, p.f); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// checkPack reads every object header of the pack, inflating the objects
// only to skip them (and the first bytes of each delta), in constant
// memory.
func checkPack(r io.Reader) error {
	sc := packfile.NewScanner(r)
	_, objects, err := sc.Header()
	if err != nil {
		if errors.Is(err, packfile.ErrEmptyPackfile) {
			return nil
		}
		return err
	}
	for range objects {
		oh, err := sc.NextObjectHeader()
		if err != nil {
			// A pack that does not scan is left to go-git, whose error says
			// more; an empty remainder is the end.
			return nil
		}
		size := oh.Length
		var head deltaHead
		if _, _, err := sc.NextObject(&head); err != nil {
			return nil
		}
		if oh.Type == plumbing.OFSDeltaObject || oh.Type == plumbing.REFDeltaObject {
			size = head.target()
		}
		if size > MaxObjectSize {
			return fmt.Errorf("%w: an object of %d bytes (a file of the repository), over the limit of %d: remove it from the branch's history",
				ErrObjectTooLarge, size, MaxObjectSize)
		}
	}
	return nil
}

// deltaHead keeps the first bytes of an object, which for a delta hold the
// sizes of its source and of the object it makes (two varints), and
// discards the rest.
type deltaHead struct {
	b [20]byte
	n int
}

func (d *deltaHead) Write(p []byte) (int, error) {
	d.n += copy(d.b[min(d.n, len(d.b)):], p)
	return len(p), nil
}

// target is the size of the object the delta makes.
func (d *deltaHead) target() int64 {
	b := d.b[:min(d.n, len(d.b))]
	_, n := binary.Uvarint(b) // the source size
	if n <= 0 {
		return 0
	}
	t, m := binary.Uvarint(b[n:])
	if m <= 0 || t > 1<<62 {
		return 1 << 62
	}
	return int64(t)
}
