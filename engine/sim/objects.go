package sim

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
	"github.com/siteops/siteops/render"
)

// SiteObjects is what the simulated controllers of a site would have
// written to a hub: the Agents they created and the status of every
// object. The hub simulator writes it back to a real API server; the
// embedded engine only reports it through Status.
type SiteObjects struct {
	Site string
	// Deleting is set once the site's teardown started; TeardownDone
	// counts its finished steps (the finalizer order of teardown.go).
	Deleting     bool
	TeardownDone int
	// ClusterDeployment and AgentClusterInstall are nil until the bundle
	// renders them.
	ClusterDeployment   *ClusterDeploymentStatus
	AgentClusterInstall *AgentClusterInstallStatus
	InfraEnvs           []InfraEnvStatus
	BareMetalHosts      []BareMetalHostStatus
	Agents              []AgentObject
	// Secrets are the Secrets the completion created, as namespace/name,
	// with their Hive secret type.
	Secrets []SecretRef
}

// Teardown steps, in the order SiteObjects.TeardownDone counts them.
const (
	TeardownBareMetalHosts    = tdBareMetalHosts
	TeardownManagedCluster    = tdManagedCluster
	TeardownClusterDeployment = tdClusterDeployment
	TeardownInfraEnvs         = tdInfraEnvs
	TeardownNamespace         = tdNamespace
)

// ObjectStatus names an object and carries its conditions.
type ObjectStatus struct {
	Namespace  string
	Name       string
	Conditions []engine.Condition
}

// ClusterDeploymentStatus is what Hive and assisted-service write on a
// ClusterDeployment (Hive apis/hive/v1/clusterdeployment_types.go).
type ClusterDeploymentStatus struct {
	ObjectStatus
	Installed        bool
	InstallStartedAt time.Time
	InstalledAt      time.Time
	Metadata         *engine.ClusterMetadata
}

// AgentClusterInstallStatus is what the ClusterDeployments controller
// writes on an AgentClusterInstall (assisted-service
// api/hiveextension/v1beta1/agentclusterinstall_types.go).
type AgentClusterInstallStatus struct {
	ObjectStatus
	State       string
	StateInfo   string
	Percent     int
	Validations []GroupedValidation
	Metadata    *engine.ClusterMetadata
}

// GroupedValidation is one validation result with the category
// validationsInfo files it under.
type GroupedValidation struct {
	Category string
	engine.Validation
}

// InfraEnvStatus is what the InfraEnv controller writes.
type InfraEnvStatus struct {
	ObjectStatus
	ISODownloadURL string
	CreatedAt      time.Time
}

// BareMetalHostStatus is what the bare-metal operator and BMAC write on a
// BareMetalHost.
type BareMetalHostStatus struct {
	Namespace string
	Name      string
	// State is status.provisioning.state; Removed is set once the node's
	// removal finished and the host may go.
	State     string
	PoweredOn bool
	ImageURL  string
	Detached  bool
	Removed   bool
}

// AgentObject is an Agent as assisted-service creates and updates it
// (assisted-service api/v1beta1/agent_types.go).
type AgentObject struct {
	ObjectStatus
	Labels map[string]string
	// Spec as the controllers set it.
	Approved              bool
	Role                  string
	Hostname              string
	MachineConfigPool     string
	ClusterDeploymentName string // namespace/name, empty when unbound
	// Status.
	State         string
	StateInfo     string
	StatusRole    string
	Bootstrap     bool
	Stage         string
	StageStarted  time.Time
	StageUpdated  time.Time
	Percent       int
	Validations   []GroupedValidation
	Inventory     *assisted.Inventory
	InstallDisk   string
	InventoryHost string
}

// SecretRef names a Secret and its Hive secret type.
type SecretRef struct {
	Namespace string
	Name      string
	Type      string
}

// Objects reports what the controllers of a site would have written as of
// now. ErrNotFound when the engine has no such site (its teardown
// finished).
func (e *Engine) Objects(ctx context.Context, name string) (SiteObjects, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.sites[name]
	if s == nil || s.st.Gone {
		return SiteObjects{}, fmt.Errorf("site %s: %w", name, engine.ErrNotFound)
	}
	return siteObjects(s.st), nil
}

// siteObjects builds the view from the site's state alone.
func siteObjects(st *siteState) SiteObjects {
	out := SiteObjects{Site: st.Name}
	if st.Deleting != nil {
		out.Deleting, out.TeardownDone = true, st.Deleting.Step
	}
	conds := map[string][]engine.Condition{}
	for _, rc := range st.Conditions {
		conds[rc.Kind+" "+rc.Namespace+"/"+rc.Name] = rc.Conditions
	}
	get := func(kind, ns, name string) ObjectStatus {
		return ObjectStatus{Namespace: ns, Name: name, Conditions: append([]engine.Condition(nil), conds[kind+" "+ns+"/"+name]...)}
	}
	d, c := st.Desired, st.Cluster
	if d != nil && d.CD != nil {
		cd := &ClusterDeploymentStatus{ObjectStatus: get(render.KindClusterDeployment, d.CD.Namespace, d.CD.Name)}
		if c != nil {
			cd.Installed, cd.InstallStartedAt, cd.InstalledAt = c.Installed, c.RequirementsMetAt, c.InstalledAt
			if c.Installed && c.Metadata != nil {
				m := *c.Metadata
				cd.Metadata = &m
			}
		}
		out.ClusterDeployment = cd
	}
	if d != nil && d.ACI != nil {
		aci := &AgentClusterInstallStatus{ObjectStatus: get(render.KindAgentClusterInstall, d.ACI.Namespace, d.ACI.Name)}
		if c != nil {
			aci.State, aci.StateInfo, aci.Percent = string(c.Status), c.StatusInfo, c.TotalPercent
			aci.Validations = grouped(c.Validations)
			if c.Metadata != nil {
				m := *c.Metadata
				aci.Metadata = &m
			}
		}
		out.AgentClusterInstall = aci
	}
	for _, ie := range st.InfraEnvs {
		out.InfraEnvs = append(out.InfraEnvs, InfraEnvStatus{ObjectStatus: get(render.KindInfraEnv, ie.Namespace, ie.Name), ISODownloadURL: ie.ISOURL, CreatedAt: ie.CreatedAt})
	}
	for _, b := range st.BMHs {
		out.BareMetalHosts = append(out.BareMetalHosts, BareMetalHostStatus{Namespace: b.Namespace, Name: b.Name, State: b.State, PoweredOn: b.PoweredOn, ImageURL: b.ImageURL, Detached: b.Detached})
	}
	hosts := append([]*host(nil), st.Hosts...)
	sortHosts(hosts)
	sno := c != nil && c.SNO
	for _, h := range hosts {
		out.Agents = append(out.Agents, agentObject(h, get("Agent", h.Namespace, h.ID), sno))
	}
	for _, key := range st.Secrets {
		ns, name := splitKey(key)
		typ := assisted.SecretTypeKubeconfig
		if d != nil && d.CD != nil && name == d.CD.Name+assisted.SecretSuffixAdminPassword {
			typ = assisted.SecretTypeKubeadminCreds
		}
		out.Secrets = append(out.Secrets, SecretRef{Namespace: ns, Name: name, Type: typ})
	}
	return out
}

func agentObject(h *host, os ObjectStatus, sno bool) AgentObject {
	a := AgentObject{
		ObjectStatus: os,
		Labels:       map[string]string{},
		Approved:     h.Approved,
		Role:         string(h.SpecRole),
		Hostname:     h.SpecHostname,
		// The machine-config pool of the spec, as BMAC set it.
		MachineConfigPool:     h.SpecMCP,
		ClusterDeploymentName: h.ClusterRef,
		State:                 string(h.Status),
		StateInfo:             h.StatusInfo,
		Bootstrap:             h.Bootstrap,
		Stage:                 string(h.Stage),
		StageStarted:          h.StageStartedAt,
		StageUpdated:          h.StageUpdatedAt,
		Validations:           grouped(h.Validations),
		Inventory:             h.Inventory,
		InstallDisk:           h.InstallDisk,
	}
	for k, v := range h.Labels {
		a.Labels[k] = v
	}
	if h.BMH != "" {
		a.Labels[assisted.LabelAgentBMH] = h.BMH
	}
	if h.ClusterRef != "" {
		ns, _ := splitKey(h.ClusterRef)
		a.Labels[assisted.LabelClusterDeploymentNamespace] = ns
	}
	a.StatusRole = statusRole(h)
	a.Percent = hostPercent(h, sno)
	a.InventoryHost = realHostname(h)
	return a
}

// categories files every validation id under its validationsInfo group
// (assisted-service internal/host/validator.go, internal/cluster/validator.go).
var categories = func() map[string]string {
	m := map[string]string{}
	for _, v := range assisted.HostValidations {
		m[v.ID] = string(v.Category)
	}
	for _, v := range assisted.ClusterValidations {
		m[v.ID] = string(v.Category)
	}
	return m
}()

// ValidationCategories are the groups of validationsInfo.
var ValidationCategories = []string{
	string(assisted.CategoryHardware), string(assisted.CategoryNetwork), string(assisted.CategoryOperators),
	string(assisted.CategoryHostsData), string(assisted.CategoryConfiguration),
}

func grouped(rs []assisted.Result) []GroupedValidation {
	out := make([]GroupedValidation, 0, len(rs))
	for _, r := range rs {
		cat := categories[r.ID]
		if cat == "" {
			cat = string(assisted.CategoryHardware)
		}
		out = append(out, GroupedValidation{Category: cat, Validation: engine.Validation{ID: r.ID, Status: string(r.Status), Message: r.Message}})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
