package sim

import (
	"fmt"
	"sync/atomic"

	"github.com/siteops/siteops/render"
)

// siteBuilder makes bundles shaped like the renderer's output, with the
// knobs the scenario tests turn: host counts, roles, hardware annotations.
type siteBuilder struct {
	name     string
	masters  int
	workers  int
	arbiters int
	// hardware maps a host name to its sim.siteops.io/hardware value.
	hardware map[string]string
	// annotations adds BareMetalHost annotations by host name.
	annotations map[string]map[string]string
	// bmhSpec adds BareMetalHost spec fields by host name.
	bmhSpec map[string]map[string]any
	// macBase makes MACs differ between sites.
	macBase int
	// pool leaves the InfraEnv without clusterRef (late binding); the
	// hosts then bind through the cluster-reference annotation.
	pool bool
	// aciAnnotations and aciSpec add to the AgentClusterInstall.
	aciAnnotations map[string]string
	aciSpec        map[string]any
	noPullSecret   bool
	// autoRoles leaves the role annotation out: the service suggests roles.
	autoRoles  bool
	extraHosts []string // more worker names, after the counted ones
}

// nextMACBase gives each test site its own MAC range.
var nextMACBase atomic.Int64

func newSite(name string, masters, workers int) *siteBuilder {
	return &siteBuilder{name: name, masters: masters, workers: workers, hardware: map[string]string{}, annotations: map[string]map[string]string{}, macBase: int(nextMACBase.Add(1))}
}

func (s *siteBuilder) hostNames() []string {
	var out []string
	for i := range s.masters {
		out = append(out, fmt.Sprintf("%s-cp-%d", s.name, i))
	}
	for i := range s.arbiters {
		out = append(out, fmt.Sprintf("%s-arb-%d", s.name, i))
	}
	for i := range s.workers {
		out = append(out, fmt.Sprintf("%s-w-%d", s.name, i))
	}
	return append(out, s.extraHosts...)
}

func (s *siteBuilder) role(host string) string {
	for i := range s.masters {
		if host == fmt.Sprintf("%s-cp-%d", s.name, i) {
			return "master"
		}
	}
	for i := range s.arbiters {
		if host == fmt.Sprintf("%s-arb-%d", s.name, i) {
			return "arbiter"
		}
	}
	return "worker"
}

func (s *siteBuilder) mac(i int) string {
	return fmt.Sprintf("0a:5e:%02x:%02x:%02x:00", (s.macBase>>8)&0xff, s.macBase&0xff, i&0xff)
}

func obj(kind, ns, name string, wave int, content map[string]any) *render.Object {
	meta := map[string]any{"name": name}
	if ns != "" {
		meta["namespace"] = ns
	}
	content["kind"] = kind
	if m, ok := content["metadata"].(map[string]any); ok {
		for k, v := range m {
			meta[k] = v
		}
	}
	content["metadata"] = meta
	return &render.Object{Kind: kind, Namespace: ns, Name: name, Wave: wave, Content: content}
}

func (s *siteBuilder) bundle() *render.Bundle {
	ns := s.name
	b := &render.Bundle{Site: s.name}
	b.Objects = append(b.Objects, obj(render.KindNamespace, "", ns, 0, map[string]any{}))
	networking := map[string]any{
		"clusterNetwork": []any{map[string]any{"cidr": "10.128.0.0/14", "hostPrefix": 23}},
		"machineNetwork": []any{map[string]any{"cidr": "192.0.2.0/24"}},
		"serviceNetwork": []any{"172.30.0.0/16"},
	}
	spec := map[string]any{
		"clusterDeploymentRef":  map[string]any{"name": s.name},
		"imageSetRef":           map[string]any{"name": "openshift-4.20.6"},
		"networking":            networking,
		"provisionRequirements": map[string]any{"controlPlaneAgents": s.masters, "workerAgents": s.workers + len(s.extraHosts), "arbiterAgents": s.arbiters},
		"sshPublicKey":          "ssh-ed25519 AAAAC3Nza test@example.net",
	}
	if s.masters > 1 {
		spec["apiVIPs"] = []any{"192.0.2.100"}
		spec["ingressVIPs"] = []any{"192.0.2.101"}
	}
	if s.arbiters == 0 {
		delete(spec["provisionRequirements"].(map[string]any), "arbiterAgents")
	}
	for k, v := range s.aciSpec {
		spec[k] = v
	}
	aciMeta := map[string]any{}
	if len(s.aciAnnotations) > 0 {
		ann := map[string]any{}
		for k, v := range s.aciAnnotations {
			ann[k] = v
		}
		aciMeta["annotations"] = ann
	}
	b.Objects = append(b.Objects, obj(render.KindAgentClusterInstall, ns, s.name, 1, map[string]any{"metadata": aciMeta, "spec": spec}))
	cd := map[string]any{
		"baseDomain":        "example.net",
		"clusterName":       s.name,
		"clusterInstallRef": map[string]any{"group": "extensions.hive.openshift.io", "kind": "AgentClusterInstall", "name": s.name, "version": "v1beta1"},
		"pullSecretRef":     map[string]any{"name": "pull-secret"},
	}
	if s.noPullSecret {
		delete(cd, "pullSecretRef")
	}
	b.Objects = append(b.Objects, obj(render.KindClusterDeployment, ns, s.name, 1, map[string]any{"spec": cd}))
	ie := map[string]any{
		"nmStateConfigLabelSelector": map[string]any{"matchLabels": map[string]any{"nmstate-label": s.name}},
		"pullSecretRef":              map[string]any{"name": "pull-secret"},
		"sshAuthorizedKey":           "ssh-ed25519 AAAAC3Nza test@example.net",
	}
	if !s.pool {
		ie["clusterRef"] = map[string]any{"name": s.name, "namespace": ns}
	}
	b.Objects = append(b.Objects, obj(render.KindInfraEnv, ns, s.name, 1, map[string]any{"spec": ie}))
	b.Objects = append(b.Objects, obj(render.KindManagedCluster, "", s.name, 2, map[string]any{"spec": map[string]any{"hubAcceptsClient": true}}))
	for i, h := range s.hostNames() {
		ann := map[string]any{
			"bmac.agent-install.openshift.io/hostname": h + ".example.net",
			"bmac.agent-install.openshift.io/role":     s.role(h),
		}
		if s.autoRoles {
			delete(ann, "bmac.agent-install.openshift.io/role")
		}
		if hw, ok := s.hardware[h]; ok {
			ann[AnnotationHardware] = hw
		}
		for k, v := range s.annotations[h] {
			ann[k] = v
		}
		meta := map[string]any{"annotations": ann, "labels": map[string]any{"infraenvs.agent-install.openshift.io": s.name}}
		bmhSpec := map[string]any{
			"bootMACAddress": s.mac(i), "online": true, "automatedCleaningMode": "disabled",
			"bmc": map[string]any{"address": "redfish-virtualmedia+https://198.51.100.1/redfish/v1/Systems/1", "credentialsName": h + "-bmc"},
		}
		for k, v := range s.bmhSpec[h] {
			bmhSpec[k] = v
		}
		b.Objects = append(b.Objects, obj(render.KindBareMetalHost, ns, h, 3, map[string]any{"metadata": meta, "spec": bmhSpec}))
	}
	return b
}
