package reconciler

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/policy"
	"github.com/siteops/siteops/reconciler/status"
	"github.com/siteops/siteops/render"
)

// copyTree copies the directory src (an OS path) to dst/under, applying
// the replacements to every file.
func copyTree(t *testing.T, src, dst string, repl ...string) {
	t.Helper()
	r := strings.NewReplacer(repl...)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, []byte(r.Replace(string(data))), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// writeFile writes a file under dir, making its directories.
func writeFile(t *testing.T, dir, p, content string) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// mixedFleet writes a fleet with every kind of load unit:
//
//	plain/fenwick.yaml   a ClusterInstance file, walked
//	plain/wren.yaml      a SiteConfig file, walked, with an extra-manifest directory
//	manifests/wren/      that directory
//	ztp/                 the example fleet: a kustomization with generators:
//	kust/                the kustomize example: base + overlays
func mixedFleet(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	copyTree(t, "../examples/clusterinstance", filepath.Join(dir, "plain"))
	copyTree(t, "../examples/fleet", filepath.Join(dir, "ztp"))
	copyTree(t, "../examples/kustomize", filepath.Join(dir, "kust"))
	data, err := os.ReadFile("../examples/fleet/marlow-sno.yaml")
	if err != nil {
		t.Fatal(err)
	}
	wren := strings.NewReplacer("marlow", "wren", "0a:5e:00:01", "0a:5e:00:71").Replace(string(data))
	wren = strings.Replace(wren, "    - clusterName: wren-sno-01\n", "    - clusterName: wren-sno-01\n      extraManifestPath: manifests/wren\n", 1)
	writeFile(t, dir, "plain/wren.yaml", wren)
	writeFile(t, dir, "manifests/wren/01-cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: wren-extra\n  namespace: default\ndata:\n  a: b\n")
	return dir
}

var (
	policyOnce sync.Once
	policyEng  *policy.Engine
	policyErr  error
)

// builtinPolicy loads the built-in rules once for the package's tests.
func builtinPolicy(t *testing.T) *policy.Engine {
	t.Helper()
	policyOnce.Do(func() { policyEng, policyErr = policy.Load(context.Background()) })
	if policyErr != nil {
		t.Fatal(policyErr)
	}
	return policyEng
}

// indexLoad loads what w asks for and records it in the index, as a pass
// does before it checks and applies.
func indexLoad(t *testing.T, l *Loop, fsys fs.FS, w *work) *loadResult {
	t.Helper()
	run, err := l.o.policy.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.load(context.Background(), fsys, w, run)
	if err != nil {
		t.Fatal(err)
	}
	for _, lo := range res.sites {
		lo.rec.hash = lo.hash
		l.ix.put(lo.rec)
	}
	for unit, reads := range res.reads {
		l.ix.setKustomization(unit, reads)
	}
	return res
}

// singleNodeFleet writes n single-node sites, one file each, and returns
// the directory and the cluster names.
func singleNodeFleet(t *testing.T, n int) (string, []string) {
	t.Helper()
	fleet := t.TempDir()
	marlow := read(t, "../examples/fleet/marlow-sno.yaml")
	var names []string
	for i := range n {
		c := string(rune('a' + i))
		site := strings.NewReplacer("marlow", "site"+c, "0a:5e:00:01", "0a:5e:00:7"+c, "198.51.100.10", "198.51.100.7"+string(rune('0'+i))).Replace(marlow)
		writeFile(t, fleet, "site"+c+".yaml", site)
		names = append(names, "site"+c+"-sno-01")
	}
	return fleet, names
}

// dirStatus reads the status documents of a status directory.
func dirStatus(t *testing.T, dir string) map[string]status.Document {
	t.Helper()
	docs := map[string]status.Document{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		// The loop writes the directory meanwhile: a document removed
		// since the listing (a site deleted) is not there.
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var d status.Document
		if err := yaml.Unmarshal(data, &d); err == nil {
			docs[strings.TrimSuffix(e.Name(), ".yaml")] = d
		}
	}
	return docs
}

// waitDirStatus polls a status directory until its documents satisfy ok.
func waitDirStatus(t *testing.T, dir, what string, ok func(map[string]status.Document) bool) map[string]status.Document {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if docs := dirStatus(t, dir); ok(docs) {
			return docs
		}
		if time.Now().After(deadline) {
			t.Fatalf("no status with %s: %s", what, summarize(dirStatus(t, dir)))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// allInstalled reports whether the named sites are all Installed.
func allInstalled(names []string) func(map[string]status.Document) bool {
	return func(docs map[string]status.Document) bool {
		for _, n := range names {
			if docs[n].Phase != engine.PhaseInstalled {
				return false
			}
		}
		return true
	}
}

// failingEngine is an engine whose Delete, or Apply, fails while fail
// or failApply is set.
type failingEngine struct {
	engine.Engine
	fail, failApply atomic.Bool
}

func (e *failingEngine) Delete(ctx context.Context, site string) error {
	if e.fail.Load() {
		return errors.New("the BMC of " + site + " does not answer")
	}
	return e.Engine.Delete(ctx, site)
}

// batchRefusingEngine is a batch-applying engine that refuses the bundle
// of one site, and hands the others of the batch on.
type batchRefusingEngine struct {
	engine.Engine
	refuse  atomic.Value // site name
	batches atomic.Int64
}

func (e *batchRefusingEngine) ApplyBatch(ctx context.Context, bs []*render.Bundle, rev string) []error {
	e.batches.Add(1)
	errs := make([]error, len(bs))
	var rest []*render.Bundle
	var at []int
	for i, b := range bs {
		if name, _ := e.refuse.Load().(string); name == b.Site {
			errs[i] = errors.New("the hub refuses the bundle")
			continue
		}
		rest, at = append(rest, b), append(at, i)
	}
	for j, err := range e.Engine.(engine.BatchApplier).ApplyBatch(ctx, rest, rev) {
		errs[at[j]] = err
	}
	return errs
}

func (e *failingEngine) Apply(ctx context.Context, b *render.Bundle, rev string) error {
	if e.failApply.Load() {
		return errors.New("the hub refuses the bundle")
	}
	return e.Engine.Apply(ctx, b, rev)
}
