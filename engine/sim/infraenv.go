package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/siteops/siteops/engine/assisted"
	"github.com/siteops/siteops/render"
)

// isoHost is where the simulated image service serves ISOs.
const isoHost = "https://assisted-image-service.siteops.local"

// reconcileInfraEnvs is the InfraEnv controller (infraenv_controller.go,
// internal/controller/controllers/infraenv_controller.go, internal/bminventory/inventory.go): it registers each InfraEnv, builds its discovery image when
// the spec or the NMStateConfigs it selects change, and deregisters
// InfraEnvs the site no longer renders.
func (o *op) reconcileInfraEnvs() {
	st, d := o.st, o.st.Desired
	if d == nil || st.Deleting != nil {
		return
	}
	for i := range d.InfraEnvs {
		spec := &d.InfraEnvs[i]
		ie := st.infraEnv(spec.Namespace, spec.Name)
		if ie == nil {
			ie = &infraEnv{Namespace: spec.Namespace, Name: spec.Name, ID: uuidFor(st.Name, "infraenv", spec.Namespace, spec.Name)}
			st.InfraEnvs = append(st.InfraEnvs, ie)
			o.changed = true
		}
		missing := o.missingCluster(spec)
		if missing != ie.MissingCluster {
			ie.MissingCluster = missing
			o.changed = true
		}
		if missing != "" {
			continue
		}
		nms := o.e.selectNMStates(spec.Selector)
		digest := infraEnvDigest(spec, nms, st.Cluster, spec.ClusterRef != "", ie.Digest)
		if digest == ie.Digest {
			continue
		}
		ie.Digest = digest
		o.changed = true
		if problem := o.imageProblem(spec, nms, ie); problem != "" {
			ie.Error, ie.ISOURL, ie.CreatedAt, ie.Generating = problem, "", zeroTime, false
			o.event(infraEnvRef(spec), evImage, "Failed to create image: "+problem)
			continue
		}
		ie.Error, ie.Generating = "", true
		o.schedule(tkImageReady, spec.Namespace+"/"+spec.Name, o.now.Add(timing.ImageGeneration))
	}
	kept := st.InfraEnvs[:0]
	for _, ie := range st.InfraEnvs {
		if d.infraEnv(ie.Namespace, ie.Name) != nil {
			kept = append(kept, ie)
			continue
		}
		o.event("InfraEnv "+ie.Namespace+"/"+ie.Name, evDeregistered, "Deregistered the infra-env "+ie.ID)
		o.changed = true
		for _, h := range append([]*host(nil), st.Hosts...) {
			if h.Namespace == ie.Namespace && h.InfraEnv == ie.Name {
				o.deleteHost(h, "its InfraEnv was deleted (ownerReference garbage collection)")
			}
		}
	}
	st.InfraEnvs = kept
}

func infraEnvRef(spec *infraEnvSpec) string { return "InfraEnv " + spec.Namespace + "/" + spec.Name }

// missingCluster is the MissingClusterDeployment error of an InfraEnv
// bound to a cluster, or "".
func (o *op) missingCluster(spec *infraEnvSpec) string {
	if spec.ClusterRef == "" {
		return ""
	}
	d := o.st.Desired
	ns, name := splitKey(spec.ClusterRef)
	switch {
	case d.CD == nil || d.cdKey() != spec.ClusterRef:
		return fmt.Sprintf("ClusterDeployment.hive.openshift.io %q not found", name)
	case d.CD.InstallRef == "" && d.ACI == nil:
		return fmt.Sprintf("cluster does not exist: %s, AgentClusterInstall is not defined in ClusterDeployment", name)
	case o.st.Cluster == nil:
		aci := d.CD.InstallRef
		if d.ACI != nil {
			aci = d.ACI.Name
		}
		return assisted.MissingClusterText(name, aci, ns)
	}
	return ""
}

// imageProblem validates the InfraEnv as the service does before building
// the image: kernel arguments, the ignition override (parsed, and the
// whole discovery ignition measured against the 256 KiB limit, internal/cluster/validations/validations.go).
func (o *op) imageProblem(spec *infraEnvSpec, nms []nmStateSpec, ie *infraEnv) string {
	if spec.KernelArgsProblem != "" {
		return spec.KernelArgsProblem
	}
	size, err := o.ignitionSize(spec, nms)
	if err != nil {
		return err.Error()
	}
	ie.IgnitionBytes = size
	switch {
	case spec.Override != "" && size > assisted.IgnitionSizeLimit:
		return assisted.IgnitionTooLarge(size)
	case size > render.DiscoveryIgnitionWarn:
		o.event(infraEnvRef(spec), evImage, fmt.Sprintf("The discovery ignition archive is %d KiB, close to the %d KiB the service accepts: day-2 NMStateConfigs and hub settings add to it", size/1024, assisted.IgnitionSizeLimit/1024))
	}
	return ""
}

// imageReady: the image service generated the ISO.
func (o *op) imageReady(key string) {
	ns, name := splitKey(key)
	ie := o.st.infraEnv(ns, name)
	if ie == nil || !ie.Generating {
		return
	}
	spec := o.st.Desired.infraEnv(ns, name)
	arch, version := "x86_64", ""
	if spec != nil && spec.Arch != "" {
		arch = spec.Arch
	}
	if c := o.st.Cluster; c != nil && spec != nil && spec.ClusterRef != "" {
		version = c.Version
	} else if spec != nil {
		version = spec.OSVersion
	}
	if parts := strings.SplitN(version, ".", 3); len(parts) >= 2 {
		version = parts[0] + "." + parts[1]
	}
	ie.Generating = false
	ie.ISOURL = fmt.Sprintf("%s/images/%s?arch=%s&type=minimal-iso&version=%s", isoHost, ie.ID, arch, version)
	ie.CreatedAt = o.now
	o.changed = true
	o.event("InfraEnv "+key, evImage, "Image has been created: "+ie.ISOURL)
}

// infraEnvDigest identifies what the discovery image is built from: the
// InfraEnv's spec, the NMStateConfigs it selects and, for a bound
// InfraEnv, the backend cluster (a re-registered cluster regenerates it).
// The controllers ask at every reconcile whether it moved, so the
// current one is returned without allocating a new string.
func infraEnvDigest(spec *infraEnvSpec, nms []nmStateSpec, c *cluster, bound bool, current string) string {
	var buf [512]byte
	in := append(buf[:0], spec.Digest...)
	for _, n := range nms {
		in = append(in, n.Namespace...)
		in = append(in, '/')
		in = append(in, n.Name...)
		in = append(in, '/')
		in = append(in, n.Digest...)
	}
	if bound && c != nil {
		in = append(in, c.ID...)
	}
	sum := sha256.Sum256(in)
	var out [24]byte
	hex.Encode(out[:], sum[:12])
	if string(out[:]) == current {
		return current
	}
	return string(out[:])
}
