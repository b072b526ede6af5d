package sim

import (
	"fmt"
	"sort"
	"time"

	"github.com/siteops/siteops/render"
)

var zeroTime time.Time

// discoveryIgnitionSize builds an InfraEnv's discovery Ignition with the
// NMStateConfigs it selects (render.DiscoveryIgnition) and measures it
// packed as in the ISO (internal/cluster/validations/validations.go). Only a config near the limit is compressed
// to measure it exactly; below that the cheap upper bound is enough.
func discoveryIgnitionSize(spec *infraEnvSpec, nms []nmStateSpec) (int, error) {
	content, err := contentMap(spec.Content, spec.Raw)
	if err != nil {
		return 0, fmt.Errorf("InfraEnv %s/%s: %w", spec.Namespace, spec.Name, err)
	}
	ie := &render.Object{Kind: render.KindInfraEnv, Namespace: spec.Namespace, Name: spec.Name, Content: content}
	objs := make([]*render.Object, 0, len(nms))
	for i := range nms {
		content, err := contentMap(nms[i].Content, nms[i].Raw)
		if err != nil {
			return 0, fmt.Errorf("NMStateConfig %s/%s: %w", nms[i].Namespace, nms[i].Name, err)
		}
		n := &render.Object{Kind: render.KindNMStateConfig, Namespace: nms[i].Namespace, Name: nms[i].Name, Content: content}
		if render.NMStateSelectorMatches(ie, n) {
			objs = append(objs, n)
		}
	}
	d, err := render.DiscoveryIgnition(ie, objs)
	if err != nil {
		return 0, err
	}
	size := d.ArchiveSizeBound()
	if size > render.DiscoveryIgnitionWarn {
		size = d.ArchiveSize()
	}
	return size, nil
}

// nmRef locates an NMStateConfig of a site.
type nmRef struct {
	site, namespace, name string
}

// selectNMStates returns the NMStateConfigs of every site that an InfraEnv
// label selector matches: the list is cluster-wide, and an empty selector
// selects none (pkg/webhooks).
func (e *Engine) selectNMStates(selector map[string]string) []nmStateSpec {
	if len(selector) == 0 {
		return nil
	}
	// The index is looked up by the selector's first label in key order.
	first, seen := "", false
	for k := range selector {
		if !seen || k < first {
			first, seen = k, true
		}
	}
	var key [128]byte
	var out []nmStateSpec
	for _, ref := range e.nmIndex[string(append(append(append(key[:0], first...), '='), selector[first]...))] {
		s := e.sites[ref.site]
		if s == nil || s.st.Desired == nil {
			continue
		}
		for _, n := range s.st.Desired.NMStates {
			if n.Namespace != ref.namespace || n.Name != ref.name {
				continue
			}
			if selects(selector, n.Labels) {
				out = append(out, n)
			}
		}
	}
	sortNMStates(out)
	return out
}

// selects reports whether a label selector matches an NMStateConfig's
// labels.
func selects(selector, labels map[string]string) bool {
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// sortNMStates orders NMStateConfigs as the InfraEnv controller lists
// them: by namespace/name.
func sortNMStates(nms []nmStateSpec) {
	if len(nms) > 1 {
		sort.Slice(nms, func(i, j int) bool {
			return nms[i].Namespace+"/"+nms[i].Name < nms[j].Namespace+"/"+nms[j].Name
		})
	}
}

// indexNMStates moves a site's NMStateConfigs in the label index.
func (e *Engine) indexNMStates(site string, old, d *desired) {
	if old != nil {
		for _, n := range old.NMStates {
			for k, v := range n.Labels {
				key := k + "=" + v
				refs := e.nmIndex[key][:0]
				for _, r := range e.nmIndex[key] {
					if r.site != site {
						refs = append(refs, r)
					}
				}
				if len(refs) == 0 {
					delete(e.nmIndex, key)
				} else {
					e.nmIndex[key] = refs
				}
			}
		}
	}
	if d != nil {
		for _, n := range d.NMStates {
			for k, v := range n.Labels {
				key := k + "=" + v
				e.nmIndex[key] = append(e.nmIndex[key], nmRef{site, n.Namespace, n.Name})
			}
		}
	}
}
