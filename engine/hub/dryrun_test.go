package hub_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/siteops/siteops/engine/hub"
	"github.com/siteops/siteops/internal/hubtest"
	"github.com/siteops/siteops/render"
)

// TestDryRun dry-runs the example sites on a hub that has none of their
// namespaces: every object passes the CRD schemas, nothing is stored; a
// BareMetalHost with a boot mode the schema does not allow is refused
// with the object and the field.
func TestDryRun(t *testing.T) {
	h := hubtest.Shared(t)
	ctx := testContext(t)
	d, err := hub.NewDryRunner(h.Config())
	if err != nil {
		t.Fatal(err)
	}
	for _, site := range []string{exampleSNO, "kestrel-3n-01", "granite-ha-01"} {
		b := exampleBundle(t, site, "dry-"+site)
		refused, err := d.Check(ctx, b)
		if err != nil || len(refused) > 0 {
			t.Errorf("%s: refused %v, error %v", site, refused, err)
		}
	}
	names, err := newEngine(t, h.Config()).Sites(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if strings.HasPrefix(n, "dry-") {
			t.Errorf("a dry run stored site %s", n)
		}
	}

	b := exampleBundle(t, exampleSNO, "dry-bad-sno")
	bmh := objectOf(t, b, render.KindBareMetalHost)
	if err := unstructured.SetNestedField(bmh.Content, "BIOSPlease", "spec", "bootMode"); err != nil {
		t.Fatal(err)
	}
	refused, err := d.Check(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(refused) != 1 || refused[0].Object != bmh.Ref() || !strings.Contains(refused[0].Err.Error(), "spec.bootMode") {
		t.Errorf("refused %v, want only %s on spec.bootMode", refused, bmh.Ref())
	}
}
