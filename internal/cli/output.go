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

// bufferPipe returns w buffered by outputPipeSize when w is a pipe, and w
// itself otherwise, with the function that writes out what the buffer
// holds. A render writes each site as one write of a few tens of KiB;
// into a pipe, every one of them wakes the reader, ten thousand times for
// ten thousand sites. Files and terminals take the writes as they come.
func bufferPipe(w io.Writer) (io.Writer, func() error) {
	f, ok := w.(*os.File)
	if !ok {
		return w, func() error { return nil }
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		return w, func() error { return nil }
	}
	bw := bufio.NewWriterSize(w, outputPipeSize)
	return bw, bw.Flush
}
