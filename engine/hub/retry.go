package hub

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Backoff between two tries of one request.
const (
	retryFirst = 100 * time.Millisecond
	retryMax   = 5 * time.Second
)

// retry calls fn until it succeeds, fails with an error that another try
// would not change, ctx is done or the retry budget is spent. It retries
// what a busy or restarting API server answers: 429, 5xx, timeouts,
// connection refused or reset, and a connection closed mid-answer.
// client-go's own retry covers only 429 and 5xx with Retry-After.
func (e *Engine) retry(ctx context.Context, fn func(context.Context) error) error {
	deadline := time.Now().Add(e.o.retryFor)
	wait := retryFirst
	for {
		err := fn(ctx)
		if err == nil || !retriable(err) || time.Now().Add(wait).After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(ctx.Err(), err)
		case <-time.After(wait):
		}
		wait = min(2*wait, retryMax)
	}
}

func retriable(err error) bool {
	switch {
	case apierrors.IsTooManyRequests(err), apierrors.IsServerTimeout(err), apierrors.IsTimeout(err),
		apierrors.IsServiceUnavailable(err), apierrors.IsInternalError(err), apierrors.IsUnexpectedServerError(err):
		return true
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return true
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Code >= 500 {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
