package render

import (
	"github.com/siteops/siteops/sites"
)

// Result is the outcome of rendering one site.
type Result struct {
	Bundle   *Bundle
	Problems sites.Problems
	// Encoded is the bundle in the requested format (nil when the site
	// failed).
	Encoded []byte
}

// RenderEncoded renders a site and encodes its bundle, so that both can run
// on a worker goroutine while another writes earlier sites out.
func (r *Renderer) RenderEncoded(s *sites.Site, enc Encoder) Result {
	b, problems := r.Render(s)
	res := Result{Bundle: b, Problems: problems}
	if b == nil {
		return res
	}
	// Start from the size of the last bundle: a fleet's sites are much
	// alike, and growing a 30 KiB buffer from nothing copies it many times.
	buf := make([]byte, 0, r.sizeHint.Load()+4096)
	var err error
	if res.Encoded, err = enc.Encode(buf, b); err != nil {
		res.Bundle = nil
		res.Problems = append(res.Problems, s.Problem(s.FieldPath(""), "%v", err))
		return res
	}
	r.sizeHint.Store(int64(len(res.Encoded)))
	return res
}
