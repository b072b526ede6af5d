package hub

import (
	"context"
	"fmt"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
	"github.com/siteops/siteops/render"
)

// Status reads the site from the caches: the ClusterDeployment, the
// AgentClusterInstall, the InfraEnvs, the BareMetalHosts and the Agents
// of the cluster, as the controllers wrote them. It sends no request.
func (e *Engine) Status(_ context.Context, name string) (engine.SiteStatus, error) {
	objs := e.objectsOf(name)
	e.mu.Lock()
	s := e.sites[name]
	var (
		revision string
		p        *problem
		deleting bool
		events   []engine.Event
		pending  bool
		borrowed []borrowed
	)
	if s != nil {
		revision, deleting, pending = s.revision, s.deleting, s.pending != nil
		borrowed = s.borrowed
		events = append(events, s.events...)
		if s.problem != nil {
			cp := *s.problem
			p = &cp
		}
	}
	e.mu.Unlock()
	if len(objs) == 0 && !pending && !deleting {
		return engine.SiteStatus{}, fmt.Errorf("site %s: %w", name, engine.ErrNotFound)
	}
	st := engine.SiteStatus{Site: name, Events: events}
	accepted := ""
	var infraEnvs []*unstructured.Unstructured
	var bmhs []*unstructured.Unstructured
	for _, l := range objs {
		// The ClusterDeployment's revision is the installation's; other
		// objects of a bundle held back halfway may carry a newer one.
		if accepted == "" || l.kind.gvk.Kind == render.KindClusterDeployment {
			accepted = l.obj.GetAnnotations()[AnnotationRevision]
		}
		st.Resources = append(st.Resources, resourceStatus(l))
		switch l.kind.gvk.Kind {
		case render.KindClusterDeployment:
			readClusterDeployment(&st.Cluster, l.obj)
		case render.KindAgentClusterInstall:
			readAgentClusterInstall(&st.Cluster, l.obj)
		case render.KindInfraEnv:
			infraEnvs = append(infraEnvs, l.obj)
		case render.KindBareMetalHost:
			bmhs = append(bmhs, l.obj)
		}
	}
	var agents []*unstructured.Unstructured
	st.Hosts, agents = e.hosts(infraEnvs, bmhs)
	for _, a := range agents {
		st.Resources = append(st.Resources, engine.ResourceStatus{Kind: KindAgent, Namespace: a.GetNamespace(), Name: a.GetName(), Conditions: conditions(a)})
	}
	// A namespace made beforehand is an object of the bundle too, while
	// it is there and the site is.
	for _, b := range borrowed {
		if m, _ := b.kind.taken("", b.name); m != nil && !deleting {
			st.Resources = append(st.Resources, engine.ResourceStatus{Kind: render.KindNamespace, Name: b.name})
		}
	}
	engine.SortResources(st.Resources)
	// The revision installed is the one the objects carry; a revision the
	// engine holds back is the refused one.
	st.Revision = revision
	if p != nil || revision == "" {
		st.Revision = accepted
		// A conflict keeps its own reason: RefusedRevision would turn it
		// into ChangeRefused.
		if p != nil && p.reason == reasonRefused && revision != accepted && !deleting {
			st.RefusedRevision = revision
		}
	}
	derivePhase(&st, p, deleting)
	st.Reason = assisted.Assess(&st, e.trackProgress(name, &st))
	return st, nil
}

// resourceStatus is an object's identity and conditions.
func resourceStatus(l liveObject) engine.ResourceStatus {
	r := engine.ResourceStatus{Kind: l.kind.gvk.Kind, Namespace: l.obj.GetNamespace(), Name: l.obj.GetName()}
	if r.Kind == render.KindInfraEnv {
		r.ISODownloadURL, _, _ = unstructured.NestedString(l.obj.Object, "status", "isoDownloadURL")
	}
	r.Conditions = conditions(l.obj)
	return r
}

// conditions reads status.conditions, which every kind here writes in
// the Kubernetes shape (type, status, reason, message,
// lastTransitionTime).
func conditions(u *unstructured.Unstructured) []engine.Condition {
	list, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	out := make([]engine.Condition, 0, len(list))
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		c := engine.Condition{Type: str(m, "type"), Status: str(m, "status"), Reason: str(m, "reason"), Message: str(m, "message")}
		c.LastTransitionTime, _ = time.Parse(time.RFC3339, str(m, "lastTransitionTime"))
		out = append(out, c)
	}
	return out
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func condition(conds []engine.Condition, typ string) (engine.Condition, bool) {
	for _, c := range conds {
		if c.Type == typ {
			return c, true
		}
	}
	return engine.Condition{}, false
}

// readClusterDeployment: spec.installed and the timestamps Hive sets
// (Hive apis/hive/v1/clusterdeployment_types.go).
func readClusterDeployment(c *engine.ClusterStatus, u *unstructured.Unstructured) {
	c.Installed, _, _ = unstructured.NestedBool(u.Object, "spec", "installed")
	c.InstallStartedAt = timeAt(u, "status", "installStartedTimestamp")
	c.InstalledAt = timeAt(u, "status", "installedTimestamp")
}

func timeAt(u *unstructured.Unstructured, fields ...string) *time.Time {
	s, _, _ := unstructured.NestedString(u.Object, fields...)
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return nil
	}
	return &t
}

// readAgentClusterInstall: the cluster's state, progress, validations and
// metadata as the ClusterDeployments controller mirrors them
// (assisted-service api/hiveextension/v1beta1/agentclusterinstall_types.go:
// status.debugInfo, status.progress.totalPercentage,
// status.validationsInfo, spec.clusterMetadata).
func readAgentClusterInstall(c *engine.ClusterStatus, u *unstructured.Unstructured) {
	c.State, _, _ = unstructured.NestedString(u.Object, "status", "debugInfo", "state")
	c.StateInfo, _, _ = unstructured.NestedString(u.Object, "status", "debugInfo", "stateInfo")
	pct, _, _ := unstructured.NestedInt64(u.Object, "status", "progress", "totalPercentage")
	c.Percent = int(pct)
	c.Validations = validations(u)
	if md, ok, _ := unstructured.NestedMap(u.Object, "spec", "clusterMetadata"); ok {
		m := &engine.ClusterMetadata{ClusterID: str(md, "clusterID"), InfraID: str(md, "infraID")}
		m.AdminKubeconfigSecretRef, _, _ = unstructured.NestedString(md, "adminKubeconfigSecretRef", "name")
		m.AdminPasswordSecretRef, _, _ = unstructured.NestedString(md, "adminPasswordSecretRef", "name")
		c.Metadata = m
	}
}

// validations lists the validations that do not pass from
// status.validationsInfo (group → [{id, status, message}]), sorted by id.
func validations(u *unstructured.Unstructured) []engine.Validation {
	groups, _, _ := unstructured.NestedMap(u.Object, "status", "validationsInfo")
	var out []engine.Validation
	for _, g := range groups {
		list, _ := g.([]any)
		for _, item := range list {
			m, ok := item.(map[string]any)
			if !ok {
				continue
			}
			v := engine.Validation{ID: str(m, "id"), Status: str(m, "status"), Message: str(m, "message")}
			if v.Status != string(assisted.ValidationSuccess) && v.Status != string(assisted.ValidationDisabled) {
				out = append(out, v)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// hosts pairs each BareMetalHost with its Agent (BMAC labels the Agent
// with the BareMetalHost's name) and adds the Agents of the site's
// InfraEnvs that no BareMetalHost booted. It also returns the Agents,
// ordered by their BareMetalHost, then name.
func (e *Engine) hosts(infraEnvs, bmhs []*unstructured.Unstructured) ([]engine.HostStatus, []*unstructured.Unstructured) {
	var agents []*unstructured.Unstructured
	if e.ks.agent != nil {
		for _, ie := range infraEnvs {
			objs, _ := e.ks.agent.informer.GetIndexer().ByIndex(indexInfraEnv, ie.GetNamespace()+"/"+ie.GetName())
			for _, o := range objs {
				if u, ok := o.(*unstructured.Unstructured); ok {
					agents = append(agents, u)
				}
			}
		}
	}
	byBMH := map[string]*unstructured.Unstructured{}
	for _, a := range agents {
		if b := a.GetLabels()[assisted.LabelAgentBMH]; b != "" {
			byBMH[a.GetNamespace()+"/"+b] = a
		}
	}
	used := map[*unstructured.Unstructured]bool{}
	var out []engine.HostStatus
	for _, b := range bmhs {
		h := engine.HostStatus{Name: b.GetName()}
		h.ProvisioningState, _, _ = unstructured.NestedString(b.Object, "status", "provisioning", "state")
		if a := byBMH[b.GetNamespace()+"/"+b.GetName()]; a != nil {
			used[a] = true
			readAgent(&h, a)
		}
		if msg, _, _ := unstructured.NestedString(b.Object, "status", "errorMessage"); msg != "" {
			h.StateInfo = joinInfo(h.StateInfo, "BareMetalHost: "+msg)
		}
		out = append(out, h)
	}
	for _, a := range agents {
		if used[a] {
			continue
		}
		h := engine.HostStatus{Name: a.GetName()}
		readAgent(&h, a)
		out = append(out, h)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	sort.SliceStable(agents, func(i, j int) bool {
		bi, bj := agents[i].GetLabels()[assisted.LabelAgentBMH], agents[j].GetLabels()[assisted.LabelAgentBMH]
		if bi != bj {
			return bi < bj
		}
		return agents[i].GetName() < agents[j].GetName()
	})
	return out, agents
}

func joinInfo(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// readAgent: the host's state, stage, progress and validations as the
// Agent controller mirrors them (assisted-service
// api/v1beta1/agent_types.go: status.debugInfo, status.progress,
// status.validationsInfo, status.inventory.hostname, spec.approved).
func readAgent(h *engine.HostStatus, a *unstructured.Unstructured) {
	h.Agent = a.GetName()
	h.Hostname, _, _ = unstructured.NestedString(a.Object, "spec", "hostname")
	if h.Hostname == "" {
		h.Hostname, _, _ = unstructured.NestedString(a.Object, "status", "inventory", "hostname")
	}
	h.Role, _, _ = unstructured.NestedString(a.Object, "status", "role")
	if h.Role == "" || h.Role == "auto-assign" {
		if r, _, _ := unstructured.NestedString(a.Object, "spec", "role"); r != "" {
			h.Role = r
		}
	}
	h.Approved, _, _ = unstructured.NestedBool(a.Object, "spec", "approved")
	h.State, _, _ = unstructured.NestedString(a.Object, "status", "debugInfo", "state")
	h.StateInfo, _, _ = unstructured.NestedString(a.Object, "status", "debugInfo", "stateInfo")
	h.Stage, _, _ = unstructured.NestedString(a.Object, "status", "progress", "currentStage")
	pct, _, _ := unstructured.NestedInt64(a.Object, "status", "progress", "installationPercentage")
	h.Percent = int(pct)
	h.Validations = validations(a)
}

// siteOfAgent finds the site of an Agent through the InfraEnv it
// registered with.
func (e *Engine) siteOfAgent(a *unstructured.Unstructured) string {
	ie := a.GetLabels()[assisted.LabelInfraEnv]
	if ie == "" {
		return ""
	}
	k := e.ks.lookup(render.KindInfraEnv)
	if k == nil {
		return ""
	}
	if u := k.get(a.GetNamespace(), ie); u != nil {
		return u.GetLabels()[LabelSite]
	}
	return ""
}
