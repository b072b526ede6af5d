package sim

import (
	"encoding/json"
	"reflect"
)

// ignitionHint is the discovery ignition size of one InfraEnv of a bundle,
// measured by Apply before it takes the engine's lock, from the InfraEnv
// and the NMStateConfigs of the same bundle its selector matches. Building
// the ignition is most of what a new site costs under the lock, and
// NMStateConfigs almost always come with the InfraEnv that selects them.
// The InfraEnv controller takes the hint only when it measures exactly
// those objects (the same content, not merely equal content): admission
// may have kept an earlier spec, or another site's NMStateConfigs may
// match too, and then it measures for itself.
type ignitionHint struct {
	namespace, name string
	content         map[string]any
	raw             json.RawMessage
	nms             []nmStateSpec
	size            int
	err             error
}

// ignitionHints measures the discovery ignition of every InfraEnv of d
// that the InfraEnv controller will measure. It reads only d.
func ignitionHints(d *desired) []ignitionHint {
	var out []ignitionHint
	for i := range d.InfraEnvs {
		spec := &d.InfraEnvs[i]
		if spec.KernelArgsProblem != "" {
			continue
		}
		nms := ownNMStates(d, spec.Selector)
		size, err := discoveryIgnitionSize(spec, nms)
		out = append(out, ignitionHint{namespace: spec.Namespace, name: spec.Name, content: spec.Content, raw: spec.Raw, nms: nms, size: size, err: err})
	}
	return out
}

// ownNMStates are the NMStateConfigs of d a selector matches, in the order
// Engine.selectNMStates lists them.
func ownNMStates(d *desired, selector map[string]string) []nmStateSpec {
	if len(selector) == 0 {
		return nil
	}
	var out []nmStateSpec
	for _, n := range d.NMStates {
		if selects(selector, n.Labels) {
			out = append(out, n)
		}
	}
	sortNMStates(out)
	return out
}

// ignitionSize is discoveryIgnitionSize, taken from the op's hints when
// one measured the same objects.
func (o *op) ignitionSize(spec *infraEnvSpec, nms []nmStateSpec) (int, error) {
	for _, h := range o.ignition {
		if h.namespace == spec.Namespace && h.name == spec.Name && sameContent(h.content, h.raw, spec.Content, spec.Raw) && sameNMStates(h.nms, nms) {
			return h.size, h.err
		}
	}
	return discoveryIgnitionSize(spec, nms)
}

func sameNMStates(a, b []nmStateSpec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Namespace != b[i].Namespace || a[i].Name != b[i].Name || !sameContent(a[i].Content, a[i].Raw, b[i].Content, b[i].Raw) {
			return false
		}
	}
	return true
}

// sameContent reports whether an object measured (its map and JSON) is
// the object to measure: the same map while the latter still holds one,
// else the same JSON (Apply dropped the maps of the bundle it measured).
func sameContent(measured map[string]any, measuredRaw json.RawMessage, m map[string]any, raw json.RawMessage) bool {
	if m != nil {
		return sameMap(measured, m)
	}
	return len(raw) > 0 && len(measuredRaw) == len(raw) && &raw[0] == &measuredRaw[0]
}

// sameMap reports whether a and b are the same map (not equal maps).
func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}
