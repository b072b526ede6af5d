package engine

import (
	"context"

	"github.com/siteops/siteops/render"
)

// Engine installs sites. Implementations are safe for concurrent use; a
// problem with one site never stops the others: it shows in that site's
// status, and Apply returns an error only when the desired state could not
// be recorded at all.
type Engine interface {
	// Apply records the desired state of one site, rendered from
	// revision. It is idempotent: applying the same bundle again changes
	// nothing. Objects that were in the site's previous bundle and are
	// not in this one are removed (a node taken out of a site is unbound
	// and removed in the same step).
	Apply(ctx context.Context, b *render.Bundle, revision string) error
	// Delete tears a site down in the upstream finalizer order. The
	// installed cluster itself is never touched.
	Delete(ctx context.Context, site string) error
	// Status reports one site. ErrNotFound when the engine has no such
	// site.
	Status(ctx context.Context, site string) (SiteStatus, error)
	// Sites lists the sites the engine holds, sorted by name.
	Sites(ctx context.Context) ([]string, error)
	// Subscribe returns a channel that receives the name of a site each
	// time its status changes, until ctx is done. A slow reader may miss
	// repeated names of one site but never the latest change.
	Subscribe(ctx context.Context) <-chan string
	// Close stops the engine and releases its state.
	Close() error
}

// BatchApplier is an Engine that admits many bundles of one revision for
// less than one Apply each. ApplyBatch applies each bundle as Apply does
// and returns one error per bundle, nil where it was applied: a bundle
// that cannot be recorded never keeps the others out.
type BatchApplier interface {
	ApplyBatch(ctx context.Context, bundles []*render.Bundle, revision string) []error
}
