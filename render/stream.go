package render

import (
	"context"
	"runtime"

	"github.com/siteops/siteops/sites"
)

// Result is the outcome of rendering one site.
type Result struct {
	Site     *sites.Site
	Bundle   *Bundle
	Problems sites.Problems
	// Encoded is the bundle in the stream's format (nil when the site
	// failed).
	Encoded []byte
}

// Stream renders sites on all CPUs and hands the results to emit in the
// order of sites. At most a few sites per CPU are held at once, so memory
// does not grow with the size of the fleet. emit may stop the stream by
// returning an error.
func (r *Renderer) Stream(ctx context.Context, list []*sites.Site, enc Encoder, emit func(Result) error) error {
	workers := runtime.GOMAXPROCS(0)
	futures := make(chan chan Result, 4*workers)
	sem := make(chan struct{}, workers)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer close(futures)
		for _, s := range list {
			ch := make(chan Result, 1)
			select {
			case futures <- ch:
			case <-ctx.Done():
				return
			}
			sem <- struct{}{}
			go func(s *sites.Site) {
				defer func() { <-sem }()
				ch <- r.renderEncoded(s, enc)
			}(s)
		}
	}()
	var err error
	for ch := range futures {
		res := <-ch
		if err == nil {
			if err = emit(res); err != nil {
				cancel()
			}
		}
	}
	if err == nil {
		err = ctx.Err()
	}
	return err
}

func (r *Renderer) renderEncoded(s *sites.Site, enc Encoder) Result {
	b, problems := r.Render(s)
	res := Result{Site: s, Bundle: b, Problems: problems}
	if b == nil {
		return res
	}
	var err error
	if res.Encoded, err = enc.Encode(nil, b); err != nil {
		res.Bundle = nil
		res.Problems = append(res.Problems, s.Problem(s.FieldPath(""), "%v", err))
	}
	return res
}
