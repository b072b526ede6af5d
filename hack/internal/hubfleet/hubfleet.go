// Package hubfleet readies a local hub for a generated fleet, as the hub
// benchmarks under hack/ need it: every site rendered, and the namespace,
// Secrets and ClusterImageSet it expects created as an operator would.
package hubfleet

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"k8s.io/client-go/rest"

	"github.com/siteops/siteops/internal/hubtest"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// Prepare renders the fleet in dir and creates each site's prerequisites
// on the hub, 16 sites at a time.
func Prepare(ctx context.Context, cfg *rest.Config, dir string) error {
	_, _, err := EachBundle(ctx, dir, render.New(), 16, func(b *render.Bundle) error {
		return hubtest.CreatePrerequisites(ctx, cfg, b, true)
	})
	return err
}

// EachBundle streams the fleet in dir through the renderer and calls fn
// on every bundle, conc at a time. It returns the sites and objects seen
// and the first error.
func EachBundle(ctx context.Context, dir string, r *render.Renderer, conc int, fn func(*render.Bundle) error) (nSites, nObjects int, err error) {
	sem := make(chan struct{}, conc)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	err = sites.Stream(ctx, os.DirFS(dir), []string{"."}, func(s *sites.Site) any {
		b, _ := r.Render(s)
		return b
	}, func(it sites.Item) error {
		b, _ := it.Result.(*render.Bundle)
		if b == nil {
			return fmt.Errorf("a site does not render: %v", it.Problems)
		}
		nSites++
		nObjects += len(b.Objects)
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := fn(b); err != nil {
				mu.Lock()
				first = errors.Join(first, err)
				mu.Unlock()
			}
		}()
		return nil
	})
	wg.Wait()
	return nSites, nObjects, errors.Join(err, first)
}
