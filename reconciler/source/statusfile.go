package source

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// A StatusFile is the content of one status file as a Git source pushes
// it: its blob hash, its size, and the content compressed as a pack entry
// holds it (zlib at packLevel). A fleet's status directory is kept in
// memory this way, a fraction of its size, and a write copies each
// changed file into the pack instead of compressing it then. Making one
// costs hashing and compressing the content, which the loop does on all
// cores as it encodes the documents.
type StatusFile struct {
	hash plumbing.Hash
	size int
	z    []byte
}

// NewStatusFile returns the status file holding data.
func NewStatusFile(data []byte) StatusFile {
	return newStatusFile(plumbing.ComputeHash(plumbing.BlobObject, data), data)
}

// newStatusFile is NewStatusFile for data whose blob hash is h.
func newStatusFile(h plumbing.Hash, data []byte) StatusFile {
	buf := compressBuffers.Get().(*[]byte)
	*buf = appendCompressed((*buf)[:0], data)
	f := StatusFile{hash: h, size: len(data), z: bytes.Clone(*buf)}
	if cap(*buf) <= maxPooledBuffer {
		compressBuffers.Put(buf)
	}
	return f
}

// compressBuffers are the buffers status files are compressed into
// before they are copied to their size; one larger than maxPooledBuffer
// (a README of a large fleet) is left to the collector.
var compressBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledBuffer = 1 << 20

// Data returns the content.
func (f StatusFile) Data() ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(f.z))
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", f.hash, err)
	}
	defer zr.Close()
	data := make([]byte, 0, f.size+bytes.MinRead)
	buf := bytes.NewBuffer(data)
	if _, err := buf.ReadFrom(io.LimitReader(zr, int64(f.size)+1)); err != nil {
		return nil, fmt.Errorf("blob %s: %w", f.hash, err)
	}
	if buf.Len() != f.size {
		return nil, fmt.Errorf("blob %s: %d bytes, want %d", f.hash, buf.Len(), f.size)
	}
	return buf.Bytes(), nil
}

// Equal reports whether f and g hold the same content. The zero
// StatusFile holds nothing, not even an empty file.
func (f StatusFile) Equal(g StatusFile) bool { return f.hash == g.hash && f.z != nil && g.z != nil }
