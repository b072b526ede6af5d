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
				fill(rng, v.Elem(), 0)
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

// fill sets v to random values: about half of the fields, pointers and
// collections left empty, so that both sides of omitempty are taken.
// Types that marshal themselves are left zero (a random RawExtension is
// no JSON).
func fill(rng *rand.Rand, v reflect.Value, depth int) {
	if depth > 12 || !v.CanSet() || infoOf(v.Type()).marshaler || infoOf(v.Type()).ptrMarshaler || rng.IntN(2) == 0 {
		return
	}
	words := []string{"", "a", "true", "0644", "x y", "redfish://h/x", "é"}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(rng, v.Elem(), depth+1)
	case reflect.Struct:
		for i := range v.NumField() {
			fill(rng, v.Field(i), depth+1)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte(words[rng.IntN(len(words))]))
			return
		}
		s := reflect.MakeSlice(v.Type(), rng.IntN(3), 3)
		for i := range s.Len() {
			fill(rng, s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for range rng.IntN(3) {
			k := reflect.New(v.Type().Key()).Elem()
			k.SetString(words[rng.IntN(len(words))])
			e := reflect.New(v.Type().Elem()).Elem()
			fill(rng, e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.String:
		v.SetString(words[rng.IntN(len(words))])
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(rng.IntN(200) - 100))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(rng.IntN(200)))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(rng.IntN(2000)) / 8)
	}
}
