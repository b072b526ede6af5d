package reconciler

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/siteops/siteops/policy"
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
	res, err := l.load(context.Background(), fsys, w)
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
