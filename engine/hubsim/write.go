package hubsim

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
	"github.com/siteops/siteops/engine/sim"
)

// writeSite writes back what the simulated controllers of a site made of
// its objects. Each part is sent only when it changed since it was last
// sent; an object not (or no longer) on the hub is skipped.
func (s *Simulator) writeSite(ctx context.Context, site string) error {
	view, err := s.eng.Objects(ctx, site)
	if notFound(err) {
		s.mu.Lock()
		ns, ok := s.siteNS[site]
		s.mu.Unlock()
		if ok {
			s.namespaces.Add(ns)
		}
		return nil
	}
	if err != nil {
		return err
	}
	// The Agents first (they register long before the cluster moves),
	// then the Secrets (the metadata that names them follows).
	if !view.Deleting {
		for _, a := range view.Agents {
			if err := s.writeAgent(ctx, a); err != nil {
				return err
			}
		}
		for _, sec := range view.Secrets {
			if err := s.writeSecret(ctx, sec, view); err != nil {
				return err
			}
		}
	}
	// The AgentClusterInstall before the ClusterDeployment: Hive reacts
	// to its conditions.
	if aci := view.AgentClusterInstall; aci != nil {
		if err := s.patch(ctx, gvrACI, aci.Namespace, aci.Name, "status", managerAssisted, aciStatus(aci)); err != nil {
			return err
		}
		if aci.Metadata != nil && !view.Deleting {
			if err := s.patch(ctx, gvrACI, aci.Namespace, aci.Name, "", managerAssisted, map[string]any{"spec": map[string]any{"clusterMetadata": metadata(aci.Metadata)}}); err != nil {
				return err
			}
		}
	}
	if cd := view.ClusterDeployment; cd != nil {
		if err := s.patch(ctx, gvrCD, cd.Namespace, cd.Name, "status", managerHive, cdStatus(cd)); err != nil {
			return err
		}
		if cd.Installed && !view.Deleting {
			if err := s.patch(ctx, gvrCD, cd.Namespace, cd.Name, "", managerHive, cdSpec(cd)); err != nil {
				return err
			}
		}
	}
	for _, ie := range view.InfraEnvs {
		st := map[string]any{"conditions": conditions(ie.Conditions)}
		if ie.ISODownloadURL != "" {
			st["isoDownloadURL"] = ie.ISODownloadURL
			st["createdTime"] = ie.CreatedAt.UTC().Format(time.RFC3339)
		}
		if err := s.patch(ctx, gvrInfraEnv, ie.Namespace, ie.Name, "status", managerAssisted, map[string]any{"status": st}); err != nil {
			return err
		}
	}
	for _, b := range view.BareMetalHosts {
		if err := s.writeBMH(ctx, b); err != nil {
			return err
		}
	}
	// Agents the simulation dropped go with the namespace's next pass.
	s.mu.Lock()
	ns, ok := s.siteNS[site]
	s.mu.Unlock()
	if ok {
		objs, _ := s.agents.GetIndexer().ByIndex(cache.NamespaceIndex, ns)
		if len(objs) != len(view.Agents) {
			s.namespaces.Add(ns)
		}
	}
	return nil
}

// patch merges body into an object (or its status subresource) under a
// controller's field manager, unless the same body was the last sent.
// An object that is not there is left alone: the controllers never
// create what they report on.
func (s *Simulator) patch(ctx context.Context, gvr schema.GroupVersionResource, ns, name, sub, manager string, body map[string]any) error {
	j, err := json.Marshal(body)
	if err != nil {
		return err
	}
	key := gvr.Resource + " " + ns + "/" + name + " " + sub
	sum := sha256.Sum256(j)
	digest := hex.EncodeToString(sum[:])
	s.mu.Lock()
	same := s.written[key] == digest
	s.mu.Unlock()
	if same {
		return nil
	}
	var subs []string
	if sub != "" {
		subs = []string{sub}
	}
	err = retry(ctx, func() error {
		_, err := s.dyn.Resource(gvr).Namespace(ns).Patch(ctx, name, types.MergePatchType, j, metav1.PatchOptions{FieldManager: manager}, subs...)
		return err
	})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("write %s %s/%s %s: %w", gvr.Resource, ns, name, sub, err)
	}
	s.mu.Lock()
	s.written[key] = digest
	s.mu.Unlock()
	return nil
}

// forget drops what was sent for an object, so that it is sent again (a
// re-created object starts empty).
func (s *Simulator) forget(gvr schema.GroupVersionResource, ns, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sub := range []string{"", "status"} {
		delete(s.written, gvr.Resource+" "+ns+"/"+name+" "+sub)
	}
}

// conditions are written in the Kubernetes shape the hub engine and
// kubectl read.
func conditions(cs []engine.Condition) []any {
	out := make([]any, 0, len(cs))
	for _, c := range cs {
		m := map[string]any{"type": c.Type, "status": c.Status, "lastTransitionTime": c.LastTransitionTime.UTC().Format(time.RFC3339)}
		if c.Reason != "" {
			m["reason"] = c.Reason
		}
		if c.Message != "" {
			m["message"] = c.Message
		}
		out = append(out, m)
	}
	return out
}

// validationsInfo groups validation results by category (assisted-service
// api/common ValidationsStatus). A category without results is null, so
// that a merge patch removes what an earlier write put there.
func validationsInfo(vs []sim.GroupedValidation) map[string]any {
	out := map[string]any{}
	for _, c := range sim.ValidationCategories {
		out[c] = nil
	}
	for _, v := range vs {
		l, _ := out[v.Category].([]any)
		out[v.Category] = append(l, map[string]any{"id": v.ID, "status": v.Status, "message": v.Message})
	}
	return out
}

func timestamp(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}

// cdStatus is Hive's ClusterDeployment status (Hive
// apis/hive/v1/clusterdeployment_types.go).
func cdStatus(cd *sim.ClusterDeploymentStatus) map[string]any {
	return map[string]any{"status": map[string]any{
		"conditions":              conditions(cd.Conditions),
		"installStartedTimestamp": timestamp(cd.InstallStartedAt),
		"installedTimestamp":      timestamp(cd.InstalledAt),
	}}
}

// cdSpec is what Hive sets in the spec of an installed cluster.
func cdSpec(cd *sim.ClusterDeploymentStatus) map[string]any {
	spec := map[string]any{"installed": true}
	if cd.Metadata != nil {
		spec["clusterMetadata"] = metadata(cd.Metadata)
	}
	return map[string]any{"spec": spec}
}

func metadata(m *engine.ClusterMetadata) map[string]any {
	out := map[string]any{
		"clusterID":                m.ClusterID,
		"infraID":                  m.InfraID,
		"adminKubeconfigSecretRef": map[string]any{"name": m.AdminKubeconfigSecretRef},
	}
	if m.AdminPasswordSecretRef != "" {
		out["adminPasswordSecretRef"] = map[string]any{"name": m.AdminPasswordSecretRef}
	}
	return out
}

// aciStatus is the ClusterDeployments controller's AgentClusterInstall
// status (assisted-service api/hiveextension/v1beta1/agentclusterinstall_types.go).
func aciStatus(a *sim.AgentClusterInstallStatus) map[string]any {
	st := map[string]any{
		"conditions":      conditions(a.Conditions),
		"progress":        map[string]any{"totalPercentage": a.Percent},
		"validationsInfo": validationsInfo(a.Validations),
	}
	if a.State != "" {
		st["debugInfo"] = map[string]any{"state": a.State, "stateInfo": a.StateInfo}
	}
	return map[string]any{"status": st}
}

// writeBMH writes the bare-metal operator's status and BMAC's image and
// detached annotation.
func (s *Simulator) writeBMH(ctx context.Context, b sim.BareMetalHostStatus) error {
	op := "OK"
	if b.Detached {
		op = "detached"
	}
	status := map[string]any{"status": map[string]any{
		"provisioning":          map[string]any{"ID": "", "state": b.State},
		"poweredOn":             b.PoweredOn,
		"operationalStatus":     op,
		"errorMessage":          "",
		"errorCount":            0,
		"provisioningFailCount": 0,
	}}
	if err := s.patch(ctx, gvrBMH, b.Namespace, b.Name, "status", managerBMO, status); err != nil {
		return err
	}
	var image, detached any
	if b.ImageURL != "" {
		image = map[string]any{"url": b.ImageURL}
	}
	if b.Detached {
		detached = assisted.DetachedByAssisted
	}
	body := map[string]any{
		"metadata": map[string]any{"annotations": map[string]any{assisted.AnnotationDetached: detached}},
		"spec":     map[string]any{"image": image},
	}
	return s.patch(ctx, gvrBMH, b.Namespace, b.Name, "", managerBMAC, body)
}

// writeAgent creates the Agent of a registered host, then keeps its
// labels, spec and status as assisted-service and BMAC set them
// (assisted-service api/v1beta1/agent_types.go).
func (s *Simulator) writeAgent(ctx context.Context, a sim.AgentObject) error {
	spec := map[string]any{"approved": a.Approved, "role": a.Role}
	if a.Hostname != "" {
		spec["hostname"] = a.Hostname
	}
	if a.MachineConfigPool != "" {
		spec["machineConfigPool"] = a.MachineConfigPool
	}
	if a.ClusterDeploymentName != "" {
		ns, name := splitKey(a.ClusterDeploymentName)
		spec["clusterDeploymentName"] = map[string]any{"namespace": ns, "name": name}
	} else {
		spec["clusterDeploymentName"] = nil
	}
	if _, ok, _ := s.agents.GetIndexer().GetByKey(a.Namespace + "/" + a.Name); !ok {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": gvrAgent.GroupVersion().String(), "kind": kindAgent,
			"metadata": map[string]any{"name": a.Name, "namespace": a.Namespace, "labels": anyMap(a.Labels), "finalizers": []any{assisted.FinalizerAgent}},
			"spec":     spec,
		}}
		err := retry(ctx, func() error {
			_, err := s.dyn.Resource(gvrAgent).Namespace(a.Namespace).Create(ctx, u, metav1.CreateOptions{FieldManager: managerAssisted})
			return err
		})
		switch {
		case apierrors.IsAlreadyExists(err):
		case apierrors.IsNotFound(err), apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
			return nil // the namespace is going
		case err != nil:
			return fmt.Errorf("create Agent %s/%s: %w", a.Namespace, a.Name, err)
		default:
			s.forget(gvrAgent, a.Namespace, a.Name)
		}
	}
	labels := anyMap(a.Labels)
	if err := s.patch(ctx, gvrAgent, a.Namespace, a.Name, "", managerAssisted, map[string]any{"metadata": map[string]any{"labels": labels}, "spec": spec}); err != nil {
		return err
	}
	return s.patch(ctx, gvrAgent, a.Namespace, a.Name, "status", managerAssisted, agentStatus(a))
}

func agentStatus(a sim.AgentObject) map[string]any {
	st := map[string]any{
		"conditions":      conditions(a.Conditions),
		"debugInfo":       map[string]any{"state": a.State, "stateInfo": a.StateInfo},
		"role":            a.StatusRole,
		"bootstrap":       a.Bootstrap,
		"validationsInfo": validationsInfo(a.Validations),
	}
	progress := map[string]any{"installationPercentage": a.Percent}
	if a.Stage != "" {
		progress["currentStage"] = a.Stage
		progress["stageStartTime"] = timestamp(a.StageStarted)
		progress["stageUpdateTime"] = timestamp(a.StageUpdated)
	}
	st["progress"] = progress
	if inv := inventory(a); inv != nil {
		st["inventory"] = inv
	}
	if a.InstallDisk != "" {
		st["installation_disk_id"] = a.InstallDisk
	}
	return map[string]any{"status": st}
}

// inventory is the Agent's status.inventory summary of the hardware the
// agent reported.
func inventory(a sim.AgentObject) map[string]any {
	inv := a.Inventory
	if inv == nil {
		return nil
	}
	var disks, ifaces []any
	for _, d := range inv.Disks {
		disks = append(disks, map[string]any{
			"id": d.ID, "name": d.Name, "path": "/dev/" + d.Name, "byPath": d.ByPath, "sizeBytes": d.SizeBytes,
			"driveType": string(d.DriveType), "model": d.Model, "serial": d.Serial,
		})
	}
	for _, i := range inv.Interfaces {
		ifaces = append(ifaces, map[string]any{
			"name": i.Name, "macAddress": i.MAC, "flags": []any{"up", "broadcast", "multicast"},
			"ipV4Addresses": anyList(i.IPv4), "ipV6Addresses": anyList(i.IPv6),
		})
	}
	return map[string]any{
		"hostname":     a.InventoryHost,
		"cpu":          map[string]any{"count": inv.CPUCores, "architecture": inv.Arch},
		"memory":       map[string]any{"physicalBytes": inv.MemoryBytes, "usableBytes": inv.MemoryBytes},
		"disks":        disks,
		"interfaces":   ifaces,
		"systemVendor": map[string]any{"manufacturer": inv.Vendor, "productName": inv.Product, "serialNumber": inv.Serial, "virtual": inv.Virtual},
	}
}

// writeSecret creates a Secret of the completion with placeholder
// content, labelled as the ClusterDeployments controller labels it.
func (s *Simulator) writeSecret(ctx context.Context, ref sim.SecretRef, view sim.SiteObjects) error {
	key := "secrets " + ref.Namespace + "/" + ref.Name + " create"
	s.mu.Lock()
	done := s.written[key] != ""
	s.mu.Unlock()
	if done {
		return nil
	}
	cd := ""
	if view.ClusterDeployment != nil {
		cd = view.ClusterDeployment.Name
	}
	sec := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: ref.Name, Namespace: ref.Namespace, Labels: map[string]string{
			assisted.LabelSecretCD: cd, assisted.LabelSecretType: ref.Type,
		}},
		Type: corev1.SecretTypeOpaque,
	}
	if ref.Type == assisted.SecretTypeKubeadminCreds {
		sec.StringData = map[string]string{"username": placeholderUser, "password": placeholderPassword}
	} else {
		sec.StringData = map[string]string{"kubeconfig": placeholderKubeconfig}
	}
	err := retry(ctx, func() error {
		_, err := s.kc.CoreV1().Secrets(ref.Namespace).Create(ctx, sec, metav1.CreateOptions{FieldManager: managerAssisted})
		return err
	})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		if apierrors.IsNotFound(err) || apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			return nil // the namespace is going
		}
		return fmt.Errorf("create Secret %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	s.mu.Lock()
	s.written[key] = "created"
	s.mu.Unlock()
	return nil
}

func anyMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func anyList(l []string) []any {
	out := make([]any, 0, len(l))
	for _, v := range l {
		out = append(out, v)
	}
	return out
}

func splitKey(key string) (ns, name string) {
	ns, name, _ = strings.Cut(key, "/")
	return ns, name
}
