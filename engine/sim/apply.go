package sim

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/siteops/siteops/engine/assisted"
	"github.com/siteops/siteops/render"
)

// refuse records that a bundle was refused; the accepted state stays.
func (o *op) refuse(refs []refusal, revision string) {
	if reflect.DeepEqual(o.st.Refusals, refs) {
		if o.st.RefusedRevision != revision {
			o.st.RefusedRevision = revision
			o.changed = true
		}
		return
	}
	o.st.Refusals = refs
	o.st.RefusedRevision = revision
	msg := fmt.Sprintf("Revision %s was refused: %s", orNone(revision), refs[0].Message)
	if len(refs) > 1 {
		msg += fmt.Sprintf(" (and %d more problems)", len(refs)-1)
	}
	o.event("", evRefused, msg)
	o.changed = true
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// admit plays the upstream admission webhooks on the objects of d: an
// object whose change they refuse keeps its accepted spec, and the refusal
// shows on it (pkg/webhooks).
func (o *op) admit(d *desired) (*desired, []refusal) {
	var refs []refusal
	old := o.st.Desired
	if d.ACI != nil {
		ref := objectRef{Kind: render.KindAgentClusterInstall, Namespace: d.ACI.Namespace, Name: d.ACI.Name}
		var prev *aciSpec
		if old != nil && old.ACI != nil && old.ACI.Namespace == d.ACI.Namespace && old.ACI.Name == d.ACI.Name {
			prev = old.ACI
		}
		problem := ""
		switch {
		case d.ACI.ControlPlane == 1 && d.ACI.UMN != nil && !*d.ACI.UMN:
			problem = "UserManagedNetworking must be set to true with SNO"
		case prev != nil && prev.ImageSet != d.ACI.ImageSet:
			problem = "Attempted to change AgentClusterInstall.ImageSetRef which is immutable"
		case prev != nil && o.installStarted():
			if changed := specChanges(prev.Spec, d.ACI.Spec, o.installCompleted()); len(changed) > 0 {
				problem = "Attempted to change AgentClusterInstall.Spec which is immutable after install started, except for ClusterMetadata,IgnitionEndpoint fields. Unsupported change: " + strings.Join(changed, ", ")
			}
		}
		if problem != "" {
			refs = append(refs, refusal{ref, reasonImmutable, fmt.Sprintf("site %s: %s: %s; revert the change in the site definition", o.st.Name, ref, problem)})
			d.ACI = prev
		}
	}
	for i := range d.InfraEnvs {
		ie := &d.InfraEnvs[i]
		if old == nil {
			break
		}
		prev := old.infraEnv(ie.Namespace, ie.Name)
		if prev == nil {
			continue
		}
		field := ""
		switch {
		case prev.ClusterRef != ie.ClusterRef && prev.ClusterRef != "":
			field = "ClusterRef"
		case prev.Arch != ie.Arch:
			field = "CpuArchitecture"
		}
		if field != "" {
			ref := objectRef{Kind: render.KindInfraEnv, Namespace: ie.Namespace, Name: ie.Name}
			refs = append(refs, refusal{ref, reasonImmutable, fmt.Sprintf("site %s: %s: Attempted to change InfraEnv.Spec.%s which is immutable; revert the change in the site definition", o.st.Name, ref, field)})
			*ie = *prev
		}
	}
	return d, refs
}

// installStarted reports whether the cluster's Completed condition says
// installation started (in progress, failed or completed).
func (o *op) installStarted() bool {
	c := o.st.Cluster
	return c != nil && !c.Status.In(assisted.ClusterInsufficient, assisted.ClusterReady, assisted.ClusterPendingForInput)
}

func (o *op) installCompleted() bool {
	c := o.st.Cluster
	return c != nil && c.Status.In(assisted.ClusterInstalled, assisted.ClusterAddingHosts)
}

// specChanges lists the top-level spec fields that differ, leaving out
// those the webhook allows to change.
func specChanges(oldSpec, newSpec string, completed bool) []string {
	var a, b map[string]any
	_ = json.Unmarshal([]byte(oldSpec), &a)
	_ = json.Unmarshal([]byte(newSpec), &b)
	allowed := map[string]bool{"clusterMetadata": true, "ignitionEndpoint": true}
	if completed {
		allowed["provisionRequirements"] = true
	}
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	var out []string
	for k := range keys {
		if !allowed[k] && !reflect.DeepEqual(a[k], b[k]) {
			out = append(out, "spec."+k)
		}
	}
	sort.Strings(out)
	return out
}

// accept makes d the site's desired state.
func (o *op) accept(d *desired, refs []refusal, revision string) {
	old := o.st.Desired
	first := old == nil
	o.st.Desired, o.st.Revision, o.st.Refusals = d, revision, refs
	o.st.RefusedRevision = ""
	if len(refs) > 0 {
		o.st.RefusedRevision = revision
	}
	msg := fmt.Sprintf("Applied revision %s", orNone(revision))
	if first {
		msg = fmt.Sprintf("Applied revision %s: %d objects, %d hosts", orNone(revision), len(d.Objects), len(d.BMHs))
	}
	o.event("", evApplied, msg)
	for _, r := range refs {
		o.event(r.Object.String(), evRefused, r.Message)
	}
	if old != nil {
		for _, b := range old.BMHs {
			if d.bmh(b.Namespace, b.Name) == nil {
				o.removeNode(b.Namespace, b.Name)
			}
		}
	}
	o.changed = true
}
