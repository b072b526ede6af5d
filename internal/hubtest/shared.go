package hubtest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
)

var shared struct {
	once sync.Once
	hub  *Hub
	err  error
}

// Shared returns the hub of this test binary, starting it on first use.
// Tests share it, so each works in namespaces of its own. The test fails
// when the hub cannot be built or started. Main stops it.
func Shared(t testing.TB) *Hub {
	t.Helper()
	shared.once.Do(func() {
		shared.hub, shared.err = Start(context.Background(), WithBuildLog(os.Stderr))
	})
	if shared.err != nil {
		t.Fatalf("test hub: %v", shared.err)
	}
	return shared.hub
}

// Main runs the tests of a package that uses Shared, then stops the
// shared hub: call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	if shared.hub != nil {
		shared.hub.Stop()
	}
	if shared.err != nil && code == 0 {
		fmt.Fprintln(os.Stderr, "test hub:", shared.err)
		code = 1
	}
	os.Exit(code)
}
