package source

import (
	"bytes"
	"context"
	"io/fs"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// fakeClock is a virtual clock: time moves only with Advance.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	calls   int
	waiters []fakeWaiter
}

type fakeWaiter struct {
	at time.Time
	ch chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.waiters = append(c.waiters, fakeWaiter{c.now.Add(d), ch})
	return ch
}

// Advance moves the clock and wakes those whose wait is over.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.at.After(c.now) {
			kept = append(kept, w)
			continue
		}
		w.ch <- c.now
	}
	c.waiters = kept
}

// Calls counts the waits begun so far.
func (c *fakeClock) Calls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

// waitForWait returns once more than since waits have begun: the code
// under test is waiting on the clock.
func (c *fakeClock) waitForWait(t *testing.T, since int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for c.Calls() <= since {
		if time.Now().After(deadline) {
			t.Fatal("nothing waited on the clock")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// logBuffer collects log lines, to check that no secret reaches them.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testGit holds a Git source under test and what it reports to.
type testGit struct {
	*Git
	clock *fakeClock
	logs  *logBuffer
	reg   *prometheus.Registry
}

// newTestGit makes a Git source with a virtual clock; o.StateDir
// defaults to a temporary directory.
func newTestGit(t *testing.T, o GitOptions) *testGit {
	t.Helper()
	tg := &testGit{clock: newFakeClock(), logs: &logBuffer{}, reg: prometheus.NewRegistry()}
	if o.StateDir == "" {
		o.StateDir = t.TempDir()
	}
	o.Clock = tg.clock
	o.Logger = slog.New(slog.NewTextHandler(tg.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	o.Registerer = tg.reg
	g, err := NewGit(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	tg.Git = g
	return tg
}

// counter reads one of the source's metrics.
func (tg *testGit) counter(name string) float64 {
	switch name {
	case "fetch":
		return testutil.ToFloat64(tg.metrics.fetchErrors)
	case "push":
		return testutil.ToFloat64(tg.metrics.pushErrors)
	}
	return testutil.ToFloat64(tg.metrics.pushRetries)
}

// next calls Next with a deadline.
func next(t *testing.T, s Source) (Snapshot, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return s.Next(ctx)
}

// mustNext is next that fails the test on an error.
func mustNext(t *testing.T, s Source) Snapshot {
	t.Helper()
	snap, err := next(t, s)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return snap
}

// readAll reads every file of fsys under dir, by path.
func readAll(t *testing.T, fsys fs.FS, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		out[p] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func bytesMap(m map[string]string) map[string][]byte {
	out := make(map[string][]byte, len(m))
	for k, v := range m {
		out[k] = []byte(v)
	}
	return out
}

func prefixed(prefix string, m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[prefix+k] = v
	}
	return out
}

// holdExactly makes files hold exactly m.
func holdExactly(files *StatusFiles, m map[string]string) {
	for _, p := range files.Paths() {
		if _, ok := m[p]; !ok {
			files.Delete(p)
		}
	}
	for p, v := range m {
		files.Set(p, []byte(v))
	}
}
