package yamlenc

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	metal3 "github.com/metal3-io/baremetal-operator/apis/metal3.io/v1alpha1"
	hivev1 "github.com/openshift/hive/apis/hive/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	aiv1beta1 "github.com/siteops/siteops/apis/agentinstall/v1beta1"
	extv1beta1 "github.com/siteops/siteops/apis/hiveext/v1beta1"
	"github.com/siteops/siteops/apis/ocm"
	"github.com/siteops/siteops/internal/tomap"
	"github.com/siteops/siteops/internal/tomap/tomaptest"
)

// viaMaps is what AppendTyped must give: the value tomap.Convert builds,
// written by Append.
func viaMaps(v any) ([]byte, error) {
	c, err := tomap.Convert(v)
	if err != nil {
		return nil, err
	}
	return Marshal(c)
}

func typed(v any) ([]byte, error) { return AppendTyped(nil, v) }

type Inlined struct {
	A string `json:"a,omitempty"`
	Z int    `json:"z"`
}

// timePointer has none of time.Time's methods: it converts as a struct.
type timePointer *time.Time

type shapes struct {
	Inlined `json:",inline"`
	Named   Inlined            `json:"named"`
	Empty   Inlined            `json:"empty,omitempty"` // structs are never empty
	Zero    Inlined            `json:"zero,omitzero"`
	Any     any                `json:"any,omitempty"`
	List    []any              `json:"list"`
	Array   [2]string          `json:"array"`
	Bytes   []byte             `json:"bytes,omitempty"`
	Map     map[string]Inlined `json:"map,omitempty"`
	When    *time.Time         `json:"when"`
	Pointer timePointer        `json:"pointer,omitempty"`
	At      time.Time          `json:"at"`
	Meta    metav1.Time        `json:"meta"`
	Port    intstr.IntOrString `json:"port"`
	Float   float32            `json:"float"`
	Uint    uint16             `json:"uint"`
	Labels  map[string]string  `json:"labels"`
	ByName  map[name]string    `json:"byName,omitempty"`
	Names   map[string]name    `json:"names,omitempty"`
	Defined labels             `json:"defined"`
	private string
	Skipped string `json:"-"`
	NoTag   string
}

// name and labels are types defined as a string and a map of strings.
type (
	name   string
	labels map[string]string
)

// byPointer inlines through a pointer: its keys depend on the value.
type byPointer struct {
	*Inlined `json:",inline"`
	B        string `json:"b"`
}

// twice writes the key "a" from two fields; the later one wins.
type twice struct {
	Inlined `json:",inline"`
	A       string `json:"a"`
}

// Every kind render builds and every shape tomap knows, filled at random,
// writes the same bytes through AppendTyped as through the map.
func TestAppendTypedMatchesConvert(t *testing.T) {
	kinds := []any{
		&corev1.ConfigMap{}, &extv1beta1.AgentClusterInstall{}, &hivev1.ClusterDeployment{},
		&aiv1beta1.NMStateConfig{}, &aiv1beta1.InfraEnv{}, &metal3.BareMetalHost{},
		&shapes{}, &byPointer{}, &twice{}, &[]shapes{}, &map[string]shapes{},
	}
	// The shapes made to be written field by field are; those whose keys
	// depend on the value go through the map on both sides.
	for typ, want := range map[reflect.Type]bool{
		reflect.TypeFor[shapes](): true, reflect.TypeFor[metal3.BareMetalHost](): true,
		reflect.TypeFor[byPointer](): false, reflect.TypeFor[twice](): false,
	} {
		if _, ok := tomap.Keys(typ); ok != want {
			t.Errorf("%s written field by field: %v, want %v", typ, ok, want)
		}
	}
	rng := rand.New(rand.NewPCG(5, 8))
	for _, kind := range kinds {
		typ := reflect.TypeOf(kind).Elem()
		t.Run(typ.String(), func(t *testing.T) {
			for i := range 300 {
				v := reflect.New(typ)
				tomaptest.Fill(rng, v.Elem())
				if i%3 == 0 {
					// The value itself, not a pointer to it: nothing
					// is addressable.
					v = v.Elem()
				}
				want, err := viaMaps(v.Interface())
				if err != nil {
					t.Fatal(err)
				}
				got, err := typed(v.Interface())
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != string(want) {
					t.Fatalf("value %d:\ngot\n%s\nwant\n%s", i, got, want)
				}
			}
		})
	}
}

func TestAppendTypedEdges(t *testing.T) {
	at := time.Date(2026, 11, 28, 7, 0, 0, 5, time.UTC)
	var nilShapes *shapes
	for name, v := range map[string]any{
		"nil":                 nil,
		"nil pointer":         nilShapes,
		"every field omitted": &Inlined{Z: 0},
		"inline pointer nil":  byPointer{B: "b"},
		"inline pointer":      byPointer{Inlined: &Inlined{A: "x"}, B: "b"},
		"a key twice":         twice{Inlined: Inlined{A: "first"}, A: "second"},
		"interface":           shapes{Any: Inlined{A: "in"}, List: []any{1, "2", Inlined{}, nil, []string{}}},
		"times":               shapes{When: &at, At: at, Meta: metav1.NewTime(at)},
		"int or string":       shapes{Port: intstr.FromString("https")},
		"top-level scalar":    "true",
		"top-level slice":     []Inlined{{A: "a"}, {Z: 2}},
		"empty slice":         []string{},
		"nested slices":       [][]int{{1, 2}, {}, nil},
		"long key":            map[string]int{strings.Repeat("k", 2000): 1},
	} {
		want, werr := viaMaps(v)
		got, gerr := typed(v)
		if werr != nil || gerr != nil {
			t.Errorf("%s: %v, %v", name, gerr, werr)
			continue
		}
		if string(got) != string(want) {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", name, got, want)
		}
	}
}

// A value the map path refuses is refused here too, with the path to it.
func TestAppendTypedErrors(t *testing.T) {
	type floats struct {
		F float64 `json:"f"`
	}
	type unsigned struct {
		U uint64 `json:"u"`
	}
	type when struct {
		At []time.Time `json:"at"`
	}
	for _, c := range []struct {
		name string
		v    any
		path string
	}{
		{"NaN", []floats{{1}, {math.NaN()}}, "[1].f"},
		{"infinity", map[string]floats{"x": {math.Inf(1)}}, `x.f`},
		{"uint over int64", &unsigned{U: math.MaxUint64}, "u"},
		{"year 10000", when{At: []time.Time{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}, "at[0]"},
		{"invalid UTF-8", Inlined{A: "\xff"}, "a"},
	} {
		if _, err := viaMaps(c.v); err == nil {
			t.Errorf("%s: the map path takes it", c.name)
		}
		dst := []byte("prefix")
		out, err := AppendTyped(dst, c.v)
		var e *Error
		if !errors.As(err, &e) || e.Path != c.path || len(out) != len(dst) {
			t.Errorf("%s: error %v (path %q, %d bytes), want one at %s and the buffer as it was", c.name, err, pathOf(e), len(out), c.path)
		}
	}
}

func pathOf(e *Error) string {
	if e == nil {
		return ""
	}
	return e.Path
}

// A cycle through pointers ends in an error, not a stack overflow.
func TestAppendTypedDepthLimit(t *testing.T) {
	type node struct {
		Next *node `json:"next"`
	}
	n := &node{}
	n.Next = n
	if _, err := typed(n); err == nil || !strings.Contains(err.Error(), "deeper than") {
		t.Fatalf("error %v, want the depth limit", err)
	}
}

// Pruned values, filled at random, write the same bytes as the map
// tomap.Convert gives once Prune.Apply has pruned it: keys omitted,
// dropped when empty after their own keys were pruned, on structs,
// pointers, Go maps and types that marshal themselves.
func TestAppendTypedPrunedMatchesApply(t *testing.T) {
	drop := func(keys map[string]*tomap.Prune) *tomap.Prune {
		return &tomap.Prune{Drop: tomap.Zero, Keys: keys}
	}
	meta := &tomap.Prune{Keys: map[string]*tomap.Prune{"creationTimestamp": drop(nil), "labels": drop(nil)}}
	base := &tomap.Prune{Keys: map[string]*tomap.Prune{"status": {Omit: true}, "metadata": meta}}
	cases := []struct {
		v     any
		prune *tomap.Prune
	}{
		{&metal3.BareMetalHost{}, &tomap.Prune{Keys: map[string]*tomap.Prune{
			"status": {Omit: true}, "metadata": meta,
			"spec": {Keys: map[string]*tomap.Prune{"bmc": drop(map[string]*tomap.Prune{"address": drop(nil), "credentialsName": drop(nil)}), "online": drop(nil)}},
		}}},
		{&hivev1.ClusterDeployment{}, &tomap.Prune{Keys: map[string]*tomap.Prune{
			"status": {Omit: true}, "metadata": meta,
			"spec": {Keys: map[string]*tomap.Prune{"installed": drop(nil), "baseDomain": drop(nil), "controlPlaneConfig": drop(nil), "platform": {Omit: true}}},
		}}},
		{&corev1.Namespace{}, &tomap.Prune{Keys: map[string]*tomap.Prune{"status": {Omit: true}, "metadata": meta, "spec": drop(nil)}}},
		{&extv1beta1.AgentClusterInstall{}, base}, {&aiv1beta1.InfraEnv{}, base},
		{&ocm.ManagedCluster{}, base}, {&ocm.KlusterletAddonConfig{}, base},
		{&shapes{}, &tomap.Prune{Keys: map[string]*tomap.Prune{
			"named": drop(map[string]*tomap.Prune{"z": {Omit: true}}), "array": {Omit: true}, "when": drop(nil),
			"meta": drop(nil), "port": drop(nil), "map": {Keys: map[string]*tomap.Prune{"k": drop(map[string]*tomap.Prune{"a": drop(nil)})}},
			"a": drop(nil), "missing": {Omit: true},
			// Replaced: a struct, a time, a key omitempty may leave out.
			"zero": {Replace: true, Value: map[string]any{"doc": []any{int64(1), "two", nil, map[string]any{}}}},
			"at":   {Replace: true, Value: "replaced"}, "any": {Replace: true, Value: true, Drop: tomap.Zero},
		}}},
		{&aiv1beta1.NMStateConfig{}, &tomap.Prune{Keys: map[string]*tomap.Prune{
			"status": {Omit: true}, "metadata": meta,
			"spec": {Keys: map[string]*tomap.Prune{"config": {Replace: true, Value: map[string]any{"interfaces": []any{map[string]any{"name": "eno1", "mtu": 1500}}}}}},
		}}},
		{&byPointer{}, &tomap.Prune{Keys: map[string]*tomap.Prune{"a": drop(nil), "b": {Omit: true}}}},
	}
	rng := rand.New(rand.NewPCG(3, 21))
	for _, c := range cases {
		typ := reflect.TypeOf(c.v).Elem()
		t.Run(typ.String(), func(t *testing.T) {
			for i := range 300 {
				v := reflect.New(typ)
				tomaptest.Fill(rng, v.Elem())
				if s, ok := v.Interface().(*shapes); ok && i%2 == 0 {
					s.Map = map[string]Inlined{"k": {A: tomaptest.Words[rng.IntN(2)]}}
				}
				conv, err := tomap.Convert(v.Interface())
				if err != nil {
					t.Fatal(err)
				}
				want, err := Marshal(c.prune.Apply(conv))
				if err != nil {
					t.Fatal(err)
				}
				got, err := AppendTypedPruned(nil, v.Interface(), c.prune)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != string(want) {
					t.Fatalf("value %d:\ngot\n%s\nwant\n%s", i, got, want)
				}
			}
		})
	}
}
