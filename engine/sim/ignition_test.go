package sim

import (
	"maps"
	"testing"

	"github.com/siteops/siteops/render"
)

// ignitionBundle is a single-node site with an NMStateConfig its InfraEnv
// selects.
func ignitionBundle(t *testing.T, name string) *desired {
	t.Helper()
	b := newSite(name, 1, 0).bundle()
	b.Objects = append(b.Objects, obj(render.KindNMStateConfig, name, name+"-cp-0", 1, map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"nmstate-label": name}},
		"spec": map[string]any{
			"config":     map[string]any{"interfaces": []any{map[string]any{"name": "eth0", "type": "ethernet", "state": "up"}}},
			"interfaces": []any{map[string]any{"name": "eth0", "macAddress": "0a:5e:00:00:00:01"}},
		},
	}))
	d, refusals := parseBundle(b)
	if len(refusals) > 0 || len(d.InfraEnvs) != 1 || len(d.NMStates) != 1 {
		t.Fatalf("bundle: %d InfraEnvs, %d NMStateConfigs, refusals %v", len(d.InfraEnvs), len(d.NMStates), refusals)
	}
	return d
}

// The InfraEnv controller takes the size Apply measured only for the very
// objects Apply measured; anything else is measured again.
func TestIgnitionHints(t *testing.T) {
	d := ignitionBundle(t, "ign")
	spec := &d.InfraEnvs[0]
	want, err := discoveryIgnitionSize(spec, d.NMStates)
	if err != nil || want == 0 {
		t.Fatalf("size %d, %v", want, err)
	}
	hints := ignitionHints(d)
	if len(hints) != 1 || hints[0].size != want || hints[0].err != nil || len(hints[0].nms) != 1 {
		t.Fatalf("hints %+v, want one of %d bytes with the NMStateConfig", hints, want)
	}
	const marked = 7 // a size no ignition has: tells whether the hint was taken
	hints[0].size = marked

	copied := *spec
	copied.Content = maps.Clone(spec.Content)
	other := ignitionBundle(t, "ign").NMStates[0]
	nmCopy := d.NMStates[0]
	nmCopy.Content = maps.Clone(nmCopy.Content)
	for _, tc := range []struct {
		name string
		spec *infraEnvSpec
		nms  []nmStateSpec
		want int
	}{
		{"the objects Apply measured", spec, d.NMStates, marked},
		{"an equal InfraEnv that is another object", &copied, d.NMStates, want},
		{"an equal NMStateConfig that is another object", spec, []nmStateSpec{nmCopy}, want},
		{"another site's NMStateConfig selected too", spec, []nmStateSpec{d.NMStates[0], other}, -1},
		{"none selected", spec, nil, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &op{ignition: hints}
			got, err := o.ignitionSize(tc.spec, tc.nms)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == -1 {
				if got == marked {
					t.Errorf("took the hint for other objects")
				}
				return
			}
			if got != tc.want {
				t.Errorf("size %d, want %d", got, tc.want)
			}
		})
	}
}
