package render

import (
	"sync"

	"github.com/siteops/siteops/internal/redact"
	"github.com/siteops/siteops/sites"
)

// Result is the outcome of rendering one site.
type Result struct {
	Bundle   *Bundle
	Problems sites.Problems
	// Encoded is the bundle in the requested format (nil when the site
	// failed).
	Encoded []byte
	// buf is the pooled buffer Encoded was written into; Release gives
	// it back.
	buf *[]byte
	// redacted says that Encoded went through redact.Bytes (Redacting)
	// when the registered values were at generation, so that
	// StreamWriter.WriteResult need not scan it again unless a value was
	// registered since.
	redacted   bool
	generation uint64
}

// hidden reports whether Encoded holds no credential known now.
func (res *Result) hidden() bool {
	return res.redacted && res.generation == redact.Generation()
}

// encodeBuffers recycles the buffers bundles are encoded into: a site's
// bundle is tens of kilobytes, and a fresh buffer per site is most of
// what a render allocates.
var encodeBuffers sync.Pool

// maxPooledBuffer bounds the buffers kept for reuse, so that one huge
// site does not pin its buffer for the rest of the run.
const maxPooledBuffer = 4 << 20

// RenderEncoded renders a site and encodes its bundle, so that both can run
// on a worker goroutine while another writes earlier sites out. With an
// encoder from Redacting, hiding credentials runs there too. Calling
// Release on the result once its bytes are written lets a later site reuse
// the buffer.
//
// With the YAML encoder, objects are written from their typed form where
// the content map would hold only that (no crTemplate configured for the
// object, no field kept empty, no hook that completes the content: the
// ConfigMaps and HostFirmwareSettings keep their maps). The result's
// bundle then has objects without Content; this package's functions that
// read an object's content (DiscoveryIgnition, NMStateSelectorMatches,
// the encoders) build it for them.
func (r *Renderer) RenderEncoded(s *sites.Site, enc Encoder) Result {
	b, problems := r.render(s, writesTyped(enc))
	res := Result{Bundle: b, Problems: problems}
	if b == nil {
		return res
	}
	// A new buffer starts from the size of the last bundle: a fleet's
	// sites are much alike, and growing a 30 KiB buffer from nothing
	// copies it many times.
	buf := getEncodeBuffer(int(r.sizeHint.Load()) + 4096)
	generation := redact.Generation()
	encoded, err := enc.Encode((*buf)[:0], b)
	if err != nil {
		putEncodeBuffer(buf)
		res.Bundle = nil
		res.Problems = append(res.Problems, s.Problem(s.FieldPath(""), "%v", err))
		return res
	}
	*buf = encoded
	r.sizeHint.Store(int64(len(encoded)))
	res.Encoded, res.buf = encoded, buf
	if _, ok := enc.(redactingEncoder); ok {
		res.redacted, res.generation = true, generation
	}
	return res
}

// Release hands the result's buffer back for reuse. Encoded must not be
// used afterwards. Releasing is optional: an unreleased buffer is
// garbage-collected.
func (res *Result) Release() {
	if res.buf == nil {
		return
	}
	putEncodeBuffer(res.buf)
	res.buf, res.Encoded = nil, nil
}

// getEncodeBuffer takes a buffer from encodeBuffers, or makes one of
// capacity size.
func getEncodeBuffer(size int) *[]byte {
	if buf, _ := encodeBuffers.Get().(*[]byte); buf != nil {
		return buf
	}
	fresh := make([]byte, 0, size)
	return &fresh
}

// putEncodeBuffer hands buf back to encodeBuffers, unless it is over
// maxPooledBuffer.
func putEncodeBuffer(buf *[]byte) {
	if cap(*buf) <= maxPooledBuffer {
		encodeBuffers.Put(buf)
	}
}
