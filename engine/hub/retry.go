package hub

import (
	"context"

	"github.com/siteops/siteops/internal/kuberetry"
)

// retry calls fn until it succeeds, fails with an error that another try
// would not change, ctx is done or the retry budget is spent
// (internal/kuberetry).
func (e *Engine) retry(ctx context.Context, fn func(context.Context) error) error {
	return kuberetry.Do(ctx, e.o.retryFor, fn)
}
