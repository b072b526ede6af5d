package tomap

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	metal3 "github.com/metal3-io/baremetal-operator/apis/metal3.io/v1alpha1"
	hivev1 "github.com/openshift/hive/apis/hive/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// viaEncodingJSON is the reference: what a JSON round trip gives.
func viaEncodingJSON(t *testing.T, v any) any {
	t.Helper()
	out, err := viaJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// labelName and labelSet are types defined as a string and a map of
// strings.
type (
	labelName string
	labelSet  map[string]string
)

type inner struct {
	A string `json:"a,omitempty"`
	B int    `json:"b"`
}

type sample struct {
	metav1.TypeMeta `json:",inline"`
	Name            string            `json:"name"`
	Skip            string            `json:"-"`
	Empty           string            `json:"empty,omitempty"`
	Zero            int32             `json:"zero"`
	Ptr             *inner            `json:"ptr,omitempty"`
	NilPtr          *inner            `json:"nilPtr"`
	Struct          inner             `json:"struct,omitempty"`
	List            []inner           `json:"list"`
	NilList         []string          `json:"nilList"`
	EmptyMap        map[string]string `json:"emptyMap,omitempty"`
	Map             map[string]int    `json:"map"`
	Bytes           []byte            `json:"bytes"`
	Untagged        bool
	F               float64              `json:"f"`
	Time            metav1.Time          `json:"time"`
	IOS             intstr.IntOrString   `json:"ios"`
	Raw             runtime.RawExtension `json:"raw"`
	GoTime          time.Time            `json:"goTime"`
	GoTimePtr       *time.Time           `json:"goTimePtr,omitempty"`
	GoTimes         []time.Time          `json:"goTimes"`
}

func TestConvertMatchesEncodingJSON(t *testing.T) {
	tests := []struct {
		name string
		v    any
	}{
		{"every field kind", &sample{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "X"}, Name: "n", Skip: "s",
			Ptr: &inner{A: "a", B: 1}, List: []inner{{B: 2}}, Map: map[string]int{"k": 3},
			Bytes: []byte("hi"), Untagged: true, F: 1.5, IOS: intstr.FromInt32(4),
			Raw: runtime.RawExtension{Raw: []byte(`{"x":[1,"y",{"z":2.5}]}`)},
		}},
		{"zero values", &sample{}},
		{"times in zones, with and without nanoseconds", &sample{
			GoTime:    time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC),
			GoTimePtr: ptr(time.Date(1999, 1, 2, 3, 4, 5, 600, time.FixedZone("x", 5*3600+30*60))),
			GoTimes:   []time.Time{{}, time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.FixedZone("y", -7*3600))},
		}},
		{"BareMetalHost", &metal3.BareMetalHost{
			ObjectMeta: metav1.ObjectMeta{Name: "h", Namespace: "c", Annotations: map[string]string{"a": "b"}},
			Spec: metal3.BareMetalHostSpec{Online: true, BMC: metal3.BMCDetails{Address: "redfish://x", CredentialsName: "s"},
				RootDeviceHints: &metal3.RootDeviceHints{DeviceName: "/dev/sda", MinSizeGigabytes: 20}},
		}},
		{"HostFirmwareSettings", &metal3.HostFirmwareSettings{Spec: metal3.HostFirmwareSettingsSpec{
			Settings: metal3.DesiredSettingsMap{"a": intstr.FromString("1"), "b": intstr.FromInt32(2)}}}},
		{"ClusterDeployment", &hivev1.ClusterDeployment{Spec: hivev1.ClusterDeploymentSpec{ClusterName: "c",
			PullSecretRef: &corev1.LocalObjectReference{}}}},
		{"ConfigMap", &corev1.ConfigMap{Data: map[string]string{"a.yaml": "x: 1\n"}}},
		{"maps of strings, of defined types", map[string]any{
			"plain": map[string]string{"a": "b"}, "defined": labelSet{"c": "d"},
			"keys": map[labelName]string{"e": "f"}, "values": map[string]labelName{"g": "h"},
			"nil": map[string]string(nil), "empty": labelSet{},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Convert(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			want := viaEncodingJSON(t, tt.v)
			// Compare as JSON text: float64(0) and int64(0) are the same
			// JSON number.
			g, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			w, _ := json.Marshal(want)
			if string(g) != string(w) {
				t.Errorf("got  %s\nwant %s", g, w)
			}
			if !reflect.DeepEqual(viaEncodingJSON(t, got), want) {
				t.Errorf("values differ in type")
			}
		})
	}
}

func TestConvertRejectsWhatJSONCannotHold(t *testing.T) {
	if _, err := Convert(map[int]string{1: "a"}); err == nil {
		t.Error("a map with int keys converted")
	}
	if _, err := Convert(struct{ C chan int }{}); err == nil {
		t.Error("a channel converted")
	}
	if _, err := Convert(struct{ T time.Time }{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}); err == nil {
		t.Error("a time JSON cannot hold (year 10000) converted")
	}
}

func BenchmarkConvertBareMetalHost(b *testing.B) {
	o := &metal3.BareMetalHost{
		TypeMeta:   metav1.TypeMeta{APIVersion: "metal3.io/v1alpha1", Kind: "BareMetalHost"},
		ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "b", Annotations: map[string]string{"x": "y", "z": "w"}},
		Spec:       metal3.BareMetalHostSpec{BMC: metal3.BMCDetails{Address: "redfish://x", CredentialsName: "c"}, Online: true},
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Object(o); err != nil {
			b.Fatal(err)
		}
	}
}

func TestObjectLeavesOutStatus(t *testing.T) {
	o := &metal3.BareMetalHost{ObjectMeta: metav1.ObjectMeta{Name: "h"}, Status: metal3.BareMetalHostStatus{ErrorMessage: "x"}}
	m, err := Object(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m["status"]; ok {
		t.Error("status converted")
	}
	if md, _ := m["metadata"].(map[string]any); md["name"] != "h" {
		t.Errorf("metadata %v", m["metadata"])
	}
}

func ptr[T any](v T) *T { return &v }
