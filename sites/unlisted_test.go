package sites

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"
)

// A site file beside a kustomization that does not list it is not
// loaded, and says so; listed files, other kinds and sub-folders do not.
func TestUnlistedSiteBesideAKustomization(t *testing.T) {
	fsys := fstest.MapFS{
		"kz/kustomization.yaml":  {Data: []byte("generators: [listed.yaml]\n")},
		"kz/listed.yaml":         {Data: []byte(siteFile("listed"))},
		"kz/forgotten.yaml":      {Data: []byte(siteFile("forgotten"))},
		"kz/ci.yml":              {Data: []byte("apiVersion: siteconfig.open-cluster-management.io/v1alpha1\nkind: ClusterInstance # a comment\n")},
		"kz/bios.yaml":           {Data: []byte("kind: HostFirmwareSettings\n")},
		"kz/notes/sub-site.yaml": {Data: []byte(siteFile("in-a-sub-folder"))},
	}
	quiet, err := Load(context.Background(), fsys, []string{"kz"})
	if err != nil || len(quiet.Problems) != 0 {
		t.Fatalf("without the option: %v %v", err, quiet.Problems)
	}
	fleet, err := Load(context.Background(), fsys, []string{"kz"}, WithUnlistedSiteWarnings(true))
	if err != nil {
		t.Fatal(err)
	}
	if got := siteNames(fleet.Sites); strings.Join(got, ",") != "listed" {
		t.Errorf("sites %v", got)
	}
	want := []string{
		"kz/ci.yml: warning: defines a ClusterInstance that kz/kustomization.yaml does not list, so it is not loaded (list it under resources: in kz/kustomization.yaml, or move it out of this folder)",
		"kz/forgotten.yaml: warning: defines a SiteConfig that kz/kustomization.yaml does not list, so it is not loaded (list it under generators: in kz/kustomization.yaml, or move it out of this folder)",
	}
	var got []string
	for _, p := range fleet.Problems {
		got = append(got, p.Error())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
