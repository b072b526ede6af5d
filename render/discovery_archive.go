package render

import (
	"compress/gzip"
	"fmt"
	"io"
	"sync"
)

// assisted-service does not compare the config's length with the limit but the
// size of the archive the config travels in inside the ISO: a gzipped cpio
// ("newc") archive holding one file, config.ign, mode 0100644
// (assisted-image-service isoeditor IgnitionContent.Archive, called by
// ValidateIgnitionImageSize in openshift/assisted-service
// internal/cluster/validations/validations.go). Compression is why thousands of
// similar NMStateConfigs fit in 256 KiB.

// ArchiveSize is the size of the discovery config packed as assisted-service
// packs it before comparing with DiscoveryIgnitionLimit. It compresses the
// config, which costs about a millisecond per 100 KiB: ask
// ArchiveSizeBound first.
func (d *Discovery) ArchiveSize() int {
	zw := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(zw)
	var n countingWriter
	zw.Reset(&n)
	writeIgnitionCpio(zw, d.JSON)
	zw.Close() // writes to a counter: cannot fail
	return int(n)
}

// ArchiveSizeBound is an upper bound of ArchiveSize that costs nothing:
// the archive uncompressed plus the most gzip adds to data it cannot
// compress (a 5-byte header per stored block of 64 KiB, 18 bytes of gzip
// header and trailer). A config whose bound is under a threshold has an
// archive under it too.
func (d *Discovery) ArchiveSizeBound() int {
	n := cpioSize(len(d.JSON))
	return n + 5*(n/65535+1) + 18 + 64
}

var gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(io.Discard) }}

type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

const (
	cpioName    = "config.ign"
	cpioMode    = 0o100644
	cpioTrailer = "TRAILER!!!"
	cpioHeader  = 110 // "070701" and 13 eight-digit hex fields
)

// cpioSize is the length of the archive of a config of n bytes.
func cpioSize(n int) int {
	return pad4(cpioHeader+len(cpioName)+1) + pad4(n) + pad4(cpioHeader+len(cpioTrailer)+1)
}

func pad4(n int) int { return (n + 3) &^ 3 }

// writeIgnitionCpio writes a newc archive with config.ign holding data.
func writeIgnitionCpio(w io.Writer, data []byte) {
	entry := func(name string, mode, nlink, size int) {
		hdr := fmt.Sprintf("070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
			0, mode, 0, 0, nlink, 0, size, 0, 0, 0, 0, len(name)+1, 0)
		io.WriteString(w, hdr+name+"\x00")
		w.Write(make([]byte, pad4(cpioHeader+len(name)+1)-(cpioHeader+len(name)+1)))
	}
	entry(cpioName, cpioMode, 1, len(data))
	w.Write(data)
	w.Write(make([]byte, pad4(len(data))-len(data)))
	entry(cpioTrailer, 0, 1, 0)
}
