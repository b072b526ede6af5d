package tomap

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	metal3 "github.com/metal3-io/baremetal-operator/apis/metal3.io/v1alpha1"
	hivev1 "github.com/openshift/hive/apis/hive/v1"
	corev1 "k8s.io/api/core/v1"

	aiv1beta1 "github.com/siteops/siteops/apis/agentinstall/v1beta1"
	extv1beta1 "github.com/siteops/siteops/apis/hiveext/v1beta1"
	"github.com/siteops/siteops/apis/ocm"
	"github.com/siteops/siteops/internal/tomap/tomaptest"
)

// Every kind render builds, filled with random values, converts to what a
// JSON round trip gives: the conversion's cached type facts (layouts,
// which types marshal themselves or say when they are zero) change nothing.
func TestRandomObjectsMatchEncodingJSON(t *testing.T) {
	kinds := []any{
		&corev1.Namespace{}, &corev1.ConfigMap{}, &extv1beta1.AgentClusterInstall{}, &hivev1.ClusterDeployment{},
		&aiv1beta1.NMStateConfig{}, &aiv1beta1.InfraEnv{}, &metal3.BareMetalHost{}, &metal3.HostFirmwareSettings{},
		&ocm.ManagedCluster{}, &ocm.KlusterletAddonConfig{},
	}
	rng := rand.New(rand.NewPCG(11, 13))
	for _, kind := range kinds {
		typ := reflect.TypeOf(kind).Elem()
		t.Run(typ.Name(), func(t *testing.T) {
			for i := range 200 {
				v := reflect.New(typ)
				tomaptest.Fill(rng, v.Elem())
				got, err := Object(v.Interface())
				if err != nil {
					t.Fatal(err)
				}
				want := viaEncodingJSON(t, v.Interface()).(map[string]any)
				delete(want, "status")
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(want)
				if string(g) != string(w) {
					t.Fatalf("object %d:\ngot  %s\nwant %s", i, g, w)
				}
				if !reflect.DeepEqual(viaEncodingJSON(t, got), viaEncodingJSON(t, want)) {
					t.Fatalf("object %d: values differ in type", i)
				}
			}
		})
	}
}
