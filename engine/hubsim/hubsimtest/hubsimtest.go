// Package hubsimtest runs a hub simulator for the life of a test.
package hubsimtest

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"

	"github.com/siteops/siteops/engine/hubsim"
	"github.com/siteops/siteops/engine/sim"
)

// Start runs a simulator at maximum speed on the namespaces sel selects,
// its state in the namespace hubsim-state-<name>, finalizing the
// namespaces of deleted sites, logging to the test at level and above.
// It stops when the test ends or after limit, whichever comes first; an
// error it stopped with fails the test.
func Start(t testing.TB, cfg *rest.Config, name string, sel labels.Selector, level slog.Level, limit time.Duration, opts ...hubsim.Option) *hubsim.Simulator {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	log := slog.New(slog.NewTextHandler(Log{t}, &slog.HandlerOptions{Level: level}))
	base := []hubsim.Option{hubsim.WithSpeed(sim.SpeedMax), hubsim.WithNamespaceSelector(sel),
		hubsim.WithStateNamespace("hubsim-state-" + name), hubsim.WithNamespaceFinalizer(true), hubsim.WithLogger(log)}
	s, err := hubsim.New(ctx, cfg, append(base, opts...)...)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("hub-sim: %v", err)
		}
	})
	return s
}

// Log sends a log to the test's, a line per record.
type Log struct{ T testing.TB }

func (l Log) Write(p []byte) (int, error) {
	l.T.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
