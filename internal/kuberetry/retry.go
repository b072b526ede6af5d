package kuberetry

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
	First = 100 * time.Millisecond
	Max   = 5 * time.Second
)

// Do calls fn until it succeeds, fails with an error that another try
// would not change, ctx is done or budget is spent. client-go's own retry
// covers only 429 and 5xx with Retry-After.
func Do(ctx context.Context, budget time.Duration, fn func(context.Context) error) error {
	deadline := time.Now().Add(budget)
	wait := First
	for {
		err := fn(ctx)
		if err == nil || !Retriable(err) || time.Now().Add(wait).After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(ctx.Err(), err)
		case <-time.After(wait):
		}
		wait = min(2*wait, Max)
	}
}

// Retriable reports whether err is what a busy or restarting API server
// answers: 429, 5xx, timeouts, connection refused or reset, and a
// connection closed mid-answer.
func Retriable(err error) bool {
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
