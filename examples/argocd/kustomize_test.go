package argocd_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// functionAnnotation makes a SiteConfig file an exec KRM function call
// of siteops: the one change to a ZTP fleet that moves it from the
// upstream exec plugin to siteops.
func functionAnnotation(bin, manifests string) string {
	return "  annotations:\n    config.kubernetes.io/function: |\n      exec:\n        path: " + bin +
		"\n        args: [render, --krm, --extra-manifests-dir, " + manifests + "]\n"
}

// TestKustomizeGeneratorsCallSiteops builds the example fleet with real
// kustomize, its generators: SiteConfig files calling `siteops render
// --krm`, and compares the objects with `siteops render`'s.
func TestKustomizeGeneratorsCallSiteops(t *testing.T) {
	bin := buildSiteops(t)
	manifests, err := filepath.Abs("../extra-manifests")
	if err != nil {
		t.Fatal(err)
	}
	fleet := filepath.Join(t.TempDir(), "fleet")
	copyTree(t, "../fleet", fleet)
	want := objectSet(t, siteopsRender(t, bin, fleet, manifests))

	sitesFiles, err := filepath.Glob(filepath.Join(fleet, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range sitesFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "kind: SiteConfig") {
			continue
		}
		if strings.Contains(string(data), "\n  annotations:") {
			t.Fatalf("%s has metadata annotations; the test inserts its own", f)
		}
		data = []byte(strings.Replace(string(data), "\nmetadata:\n", "\nmetadata:\n"+functionAnnotation(bin, manifests), 1))
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 4 {
		t.Fatalf("annotated %d SiteConfig files, want the 4 of the example fleet", n)
	}

	opts := krusty.MakeDefaultOptions()
	opts.PluginConfig = types.EnabledPluginConfig(types.BploUseStaticallyLinked)
	opts.PluginConfig.FnpLoadingOptions.EnableExec = true
	m, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), fleet)
	if err != nil {
		t.Fatalf("kustomize build: %v", err)
	}
	out, err := m.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	compareSets(t, "kustomize with siteops render --krm", objectSet(t, string(out)), want)

	// A broken site fails the build with an error naming file, line,
	// site and field: kustomize does not say which file a generator's
	// config came from, siteops finds it in the kustomization.
	broken := filepath.Join(fleet, "marlow-sno.yaml")
	data, _ := os.ReadFile(broken)
	text := strings.Replace(string(data), "    - clusterName: marlow-sno-01\n", "    - clusterName: marlow-sno-01\n      holdInstallation: maybe\n", 1)
	if err := os.WriteFile(broken, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	line := strings.Count(text[:strings.Index(text, "holdInstallation: maybe")], "\n") + 1
	// kustomize passes the function's stderr through as its own.
	stderr, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = stderr
	_, err = krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), fleet)
	os.Stderr = saved
	stderr.Close()
	logged, _ := os.ReadFile(stderr.Name())
	wantErr := fmt.Sprintf("marlow-sno.yaml:%d:25: site marlow-sno-01: spec.clusters[0].holdInstallation:", line)
	if err == nil || !strings.Contains(string(logged), wantErr) {
		t.Errorf("kustomize build of a broken site: %v, stderr:\n%s\nwant an error with %q", err, logged, wantErr)
	}
}
