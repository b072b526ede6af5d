package cli

import (
	"bufio"
	"io"
	"os"
)

// outputPipeSize is the capacity asked for a pipe a command writes its
// output into (growPipe), and the size of the writes into one
// (bufferPipe): the writer and its reader (kubectl, Argo CD's plugin
// server) would otherwise take turns at every site.
const outputPipeSize = 1 << 20

// bufferPipe returns stdout buffered by outputPipeSize when it is a pipe,
// with stderr made to write out that buffer before each of its own
// writes, and the function that writes out the buffer. Anything else is
// returned as it is. A render writes each site as one write of a few tens
// of KiB; into a pipe, every one of them wakes the reader, ten thousand
// times for ten thousand sites. Files and terminals take the writes as
// they come. Messages on stderr keep their place among the output when
// both go to one pipe (2>&1): a problem still follows the sites before
// it.
func bufferPipe(stdout, stderr io.Writer) (out, errOut io.Writer, flush func() error) {
	if _, ok := pipe(stdout); !ok {
		return stdout, stderr, func() error { return nil }
	}
	b := bufio.NewWriterSize(stdout, outputPipeSize)
	return b, flushingWriter{b, stderr}, b.Flush
}

// flushingWriter writes to w after writing out buf. A render writes its
// output and its messages from one goroutine (the one sites.Stream hands
// sites to), so the two never write at once.
type flushingWriter struct {
	buf *bufio.Writer
	w   io.Writer
}

func (f flushingWriter) Write(p []byte) (int, error) {
	if err := f.buf.Flush(); err != nil {
		return 0, err
	}
	return f.w.Write(p)
}

// pipe returns w as a file when it is a pipe.
func pipe(w io.Writer) (*os.File, bool) {
	f, ok := w.(*os.File)
	if !ok {
		return nil, false
	}
	st, err := f.Stat()
	return f, err == nil && st.Mode()&os.ModeNamedPipe != 0
}
