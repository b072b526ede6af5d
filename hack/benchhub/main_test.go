package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/siteops/siteops/hack/fleetgen/gen"
	"github.com/siteops/siteops/hack/internal/hubfleet"
	"github.com/siteops/siteops/internal/hubtest"
)

func TestMain(m *testing.M) { hubtest.Main(m) }

// A small fleet goes through both measurements on a real API server:
// the first apply sends one request per object it creates plus the
// Secret lookups, the second (a new engine: a restart) none.
func TestRunChild(t *testing.T) {
	h := hubtest.Shared(t)
	dir := filepath.Join(t.TempDir(), "fleet")
	if _, err := gen.Generate(dir, gen.Config{Sites: 3, Shape: gen.ShapeSNO, Layout: gen.LayoutFiles, Manifests: 3, Seed: 11}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := hubfleet.Prepare(ctx, h.Config(), dir); err != nil {
		t.Fatal(err)
	}
	for i, want := range []func(r result) bool{
		// Every object but the namespace made beforehand, and the pull
		// and BMC Secrets of each site.
		func(r result) bool { return r.Requests == int64(r.Objects-r.Sites+2*r.Sites) },
		func(r result) bool { return r.Requests == 0 },
	} {
		var out bytes.Buffer
		if err := runChild(dir, h.Kubeconfig(), 100, 200, 4, &out); err != nil {
			t.Fatal(err)
		}
		var r result
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatalf("%q: %v", out.String(), err)
		}
		if r.Sites != 3 || r.Held != 0 || !want(r) {
			t.Errorf("run %d: %+v", i+1, r)
		}
	}
}
