package sim

import (
	"slices"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
	"github.com/siteops/siteops/render"
)

// updateConditions recomputes every condition of the site from its state,
// as the upstream controllers do on every reconcile, keeping transition
// times that did not move. It also plays Hive's reactions to the
// AgentClusterInstall conditions (Hive pkg/controller/clusterdeployment/clusterinstalls.go).
func (o *op) updateConditions() {
	st, d := o.st, o.st.Desired
	// prev is an object's conditions of the last computation; a site has a
	// handful of objects, so a scan beats building an index (the last
	// entry of a name wins, as it would in a map).
	prev := func(kind, ns, name string) []engine.Condition {
		for i := len(st.Conditions) - 1; i >= 0; i-- {
			if rc := &st.Conditions[i]; rc.Name == name && rc.Kind == kind && rc.Namespace == ns {
				return rc.Conditions
			}
		}
		return nil
	}
	// get returns an object's previous conditions without the refusal
	// condition, which only the refusals below decide.
	get := func(kind, ns, name string) []engine.Condition {
		conds := prev(kind, ns, name)
		for i, c := range conds {
			if c.Type == condAccepted {
				return append(append([]engine.Condition(nil), conds[:i]...), conds[i+1:]...)
			}
		}
		return conds
	}
	getAccepted := func(kind, ns, name string) []engine.Condition {
		for _, c := range prev(kind, ns, name) {
			if c.Type == condAccepted {
				return []engine.Condition{c}
			}
		}
		return nil
	}
	var out []resourceConds
	add := func(kind, ns, name string, conds []engine.Condition) {
		if out == nil {
			out = make([]resourceConds, 0, len(st.Conditions)+1)
		}
		out = append(out, resourceConds{Kind: kind, Namespace: ns, Name: name, Conditions: conds})
	}
	if d != nil && d.ACI != nil && st.Deleting == nil {
		aci := assisted.SetConditions(get(render.KindAgentClusterInstall, d.ACI.Namespace, d.ACI.Name), o.wantConds(assisted.AppendACIConditions(o.e.condScratch[:0], o.aciView())), o.now, assisted.OnAnyChange)
		if d.CD != nil {
			cd := assisted.SetConditions(get(render.KindClusterDeployment, d.CD.Namespace, d.CD.Name), o.wantConds(assisted.AppendClusterDeploymentConditions(o.e.condScratch[:0], aci)), o.now, assisted.OnStatusChange)
			add(render.KindClusterDeployment, d.CD.Namespace, d.CD.Name, cd)
			o.hive(cd)
		}
		add(render.KindAgentClusterInstall, d.ACI.Namespace, d.ACI.Name, aci)
	}
	if d != nil && st.Deleting == nil {
		for i := range d.InfraEnvs {
			spec := &d.InfraEnvs[i]
			ie := st.infraEnv(spec.Namespace, spec.Name)
			if ie == nil {
				continue
			}
			c, ok := assisted.InfraEnvCondition(assisted.InfraEnvView{MissingCluster: ie.MissingCluster, Error: ie.Error, Generating: ie.Generating, Created: ie.ISOURL != ""})
			if ok {
				add(render.KindInfraEnv, spec.Namespace, spec.Name, assisted.SetConditions(get(render.KindInfraEnv, spec.Namespace, spec.Name), []assisted.Cond{c}, o.now, assisted.OnStatusChange))
			}
		}
	}
	hosts := st.Hosts
	if len(hosts) > 1 {
		hosts = append([]*host(nil), hosts...)
		sortHosts(hosts)
	}
	for _, h := range hosts {
		v := assisted.AgentView{Registered: true, Sync: h.Sync, Status: h.Status, StatusInfo: h.StatusInfo, Approved: h.Approved}
		if h.Validated {
			// Computed validations are never nil, even when all pass; the
			// conditions only read them.
			v.Validations = h.Validations
			if v.Validations == nil {
				v.Validations = []assisted.Result{}
			}
		}
		add("Agent", h.Namespace, h.ID, assisted.SetConditions(get("Agent", h.Namespace, h.ID), o.wantConds(assisted.AppendAgentConditions(o.e.condScratch[:0], v)), o.now, assisted.OnStatusChange))
	}
	for _, r := range st.Refusals {
		c := assisted.Cond{Type: condAccepted, Status: assisted.False, Reason: r.Reason, Message: r.Message}
		cond := assisted.SetConditions(getAccepted(r.Object.Kind, r.Object.Namespace, r.Object.Name), []assisted.Cond{c}, o.now, assisted.OnAnyChange)[0]
		found := false
		for i := range out {
			if out[i].Kind == r.Object.Kind && out[i].Namespace == r.Object.Namespace && out[i].Name == r.Object.Name {
				out[i].Conditions = append(out[i].Conditions, cond)
				found = true
			}
		}
		if !found {
			add(r.Object.Kind, r.Object.Namespace, r.Object.Name, []engine.Condition{cond})
		}
	}
	sortResources(out)
	if !equalResourceConds(out, st.Conditions) {
		st.Conditions = out
		o.dirty = true
	}
}

// wantConds keeps the list conditions were computed into for the next
// computation: SetConditions copies what it keeps of them.
func (o *op) wantConds(cs []assisted.Cond) []assisted.Cond {
	o.e.condScratch = cs
	return cs
}

// equalResourceConds is reflect.DeepEqual for conditions, without
// reflection: a nil list differs from an empty one.
func equalResourceConds(a, b []resourceConds) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Kind != y.Kind || x.Namespace != y.Namespace || x.Name != y.Name ||
			(x.Conditions == nil) != (y.Conditions == nil) || !slices.Equal(x.Conditions, y.Conditions) {
			return false
		}
	}
	return true
}

// sortResources puts objects in the order of status documents
// (engine.CompareResources).
func sortResources(rs []resourceConds) {
	slices.SortStableFunc(rs, func(a, b resourceConds) int {
		return engine.CompareResources(a.Kind, a.Namespace, a.Name, b.Kind, b.Namespace, b.Name)
	})
}

// aciView gathers what the AgentClusterInstall conditions read.
func (o *op) aciView() assisted.ACIView {
	st, c := o.st, o.st.Cluster
	v := assisted.ACIView{Registered: c != nil, Sync: st.ClusterSync}
	if c == nil {
		return v
	}
	v.Status, v.StatusInfo = c.Status, c.StatusInfo
	if c.Validated {
		v.Validations = c.Validations
		if v.Validations == nil {
			v.Validations = []assisted.Result{}
		}
	}
	v.Want, v.Got = o.wantCounts(), o.roleCounts()
	v.Unapproved, v.Unsynced, _ = o.requirements()
	d := st.Desired
	v.Hold = d.ACI.Hold || d.CD != nil && d.CD.Annotations[assisted.AnnotationReconcilePause] == "true"
	v.PrepStatus, v.PrepReason = c.PrepStatus, c.PrepReason
	if c.PrepStatus == assisted.PrepNotStarted {
		v.PrepStatus = assisted.PrepNotStarted
	}
	if s, ok := c.Operators[assisted.OperatorCVO]; ok {
		v.CVOStatus, v.CVOInfo = s, "Working towards "+c.Version
		if s == "available" {
			v.CVOInfo = "Done applying " + c.Version
		}
	}
	return v
}

// hive plays Hive's ClusterDeployment controller on the conditions it
// mirrored: the install start time is when ClusterInstallRequirementsMet
// turned True; the ClusterDeployment becomes installed when
// ClusterInstallCompleted is True, and a later reconcile converts the
// cluster to day 2 (internal/controller/controllers/clusterdeployments_controller.go TransformClusterToDay2).
func (o *op) hive(cd []engine.Condition) {
	c := o.st.Cluster
	if c == nil {
		return
	}
	if rm, ok := assisted.FindCondition(cd, assisted.CondClusterInstallRequirementsMet); ok && rm.Status == assisted.True && !rm.LastTransitionTime.Equal(c.RequirementsMetAt) {
		c.RequirementsMetAt = rm.LastTransitionTime
		o.dirty = true
	}
	if done, ok := assisted.FindCondition(cd, assisted.CondClusterInstallCompleted); ok && done.Status == assisted.True && !c.Installed {
		c.Installed, c.InstalledAt = true, done.LastTransitionTime
		o.dirty = true
		o.event("ClusterDeployment "+c.CD, evCompleted, "Cluster is provisioned: spec.installed set to true")
		if c.Status == assisted.ClusterInstalled {
			o.schedule(tkDay2, "", o.now.Add(timing.Day2Conversion))
		}
	}
}
