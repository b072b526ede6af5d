package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unique"

	"github.com/siteops/siteops/engine/assisted"
	"github.com/siteops/siteops/render"
)

// desired is the part of a site's bundle the simulated controllers read:
// each object reduced to the fields the upstream controllers use. Secret
// objects contribute their names only.
type desired struct {
	CD        *cdSpec        `json:"cd,omitempty"`
	ACI       *aciSpec       `json:"aci,omitempty"`
	InfraEnvs []infraEnvSpec `json:"infraEnvs,omitempty"`
	NMStates  []nmStateSpec  `json:"nmStates,omitempty"`
	BMHs      []bmhSpec      `json:"bmhs,omitempty"`
	Agents    []agentSpec    `json:"agents,omitempty"`
	Secrets   []string       `json:"secrets,omitempty"`
	// Objects lists every object of the bundle, for ownership and the
	// teardown order.
	Objects []objectRef `json:"objects"`
	// ImageSets maps ClusterImageSet names of the bundle to versions.
	ImageSets map[string]string `json:"imageSets,omitempty"`
}

type objectRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Wave      int    `json:"wave"`
}

func (r objectRef) String() string {
	if r.Namespace == "" {
		return r.Kind + " " + r.Name
	}
	return r.Kind + " " + r.Namespace + "/" + r.Name
}

type cdSpec struct {
	Namespace        string            `json:"namespace"`
	Name             string            `json:"name"`
	ClusterName      string            `json:"clusterName"`
	BaseDomain       string            `json:"baseDomain"`
	PullSecret       string            `json:"pullSecret,omitempty"`
	Installed        bool              `json:"installed,omitempty"`
	PreserveOnDelete bool              `json:"preserveOnDelete,omitempty"`
	InstallRef       string            `json:"installRef,omitempty"`
	Annotations      map[string]string `json:"annotations,omitempty"`
}

type aciSpec struct {
	Namespace       string                    `json:"namespace"`
	Name            string                    `json:"name"`
	CDRef           string                    `json:"cdRef"`
	ImageSet        string                    `json:"imageSet,omitempty"`
	ControlPlane    int                       `json:"controlPlane"`
	Workers         int                       `json:"workers,omitempty"`
	Arbiters        int                       `json:"arbiters,omitempty"`
	ClusterNetworks []assisted.ClusterNetwork `json:"clusterNetworks,omitempty"`
	MachineNetworks []string                  `json:"machineNetworks,omitempty"`
	ServiceNetworks []string                  `json:"serviceNetworks,omitempty"`
	APIVIPs         []string                  `json:"apiVIPs,omitempty"`
	IngressVIPs     []string                  `json:"ingressVIPs,omitempty"`
	// UMN is spec.networking.userManagedNetworking (nil: unset).
	UMN          *bool  `json:"umn,omitempty"`
	NetworkType  string `json:"networkType,omitempty"`
	PlatformType string `json:"platformType,omitempty"`
	// LoadBalancer is spec.loadBalancer.type (ClusterManaged or
	// UserManaged).
	LoadBalancer string `json:"loadBalancer,omitempty"`
	// ManifestsRef is true when spec.manifestsRef names the ConfigMap of
	// custom manifests the service uploads.
	ManifestsRef bool              `json:"manifestsRef,omitempty"`
	Hold         bool              `json:"hold,omitempty"`
	SSHKey       string            `json:"sshKey,omitempty"`
	Annotations  map[string]string `json:"annotations,omitempty"`
	// OverridesNetworkType and OverridesError come from the
	// install-config-overrides annotation, read once.
	OverridesNetworkType string `json:"overridesNetworkType,omitempty"`
	OverridesError       string `json:"overridesError,omitempty"`
	// Spec is the canonical JSON of spec, to detect changes the webhook
	// refuses once installation started.
	Spec string `json:"spec"`
}

type infraEnvSpec struct {
	Namespace   string            `json:"namespace"`
	Name        string            `json:"name"`
	ClusterRef  string            `json:"clusterRef,omitempty"` // namespace/name
	Selector    map[string]string `json:"selector,omitempty"`
	AgentLabels map[string]string `json:"agentLabels,omitempty"`
	Arch        string            `json:"arch,omitempty"`
	OSVersion   string            `json:"osVersion,omitempty"`
	// Override is the ignitionConfigOverride.
	Override string `json:"override,omitempty"`
	// KernelArgsProblem is set when a kernel argument operation is not
	// append.
	KernelArgsProblem string `json:"kernelArgsProblem,omitempty"`
	// Raw is the object as rendered, in JSON, for the discovery ignition
	// (decoded only when an image is built); Content is the same object
	// as a map, held only while Apply measures the ignition (dropContent).
	// Digest identifies its spec.
	Raw     json.RawMessage `json:"content"`
	Content map[string]any  `json:"-"`
	Digest  string          `json:"digest"`
}

type nmStateSpec struct {
	Namespace  string            `json:"namespace"`
	Name       string            `json:"name"`
	Labels     map[string]string `json:"labels,omitempty"`
	Interfaces []nmInterface     `json:"interfaces,omitempty"`
	// Addresses maps interface names to static addresses (CIDR notation).
	Addresses    map[string][]string `json:"addresses,omitempty"`
	DefaultRoute bool                `json:"defaultRoute,omitempty"`
	// Raw, Content and Digest are as in infraEnvSpec.
	Raw     json.RawMessage `json:"content"`
	Content map[string]any  `json:"-"`
	Digest  string          `json:"digest"`
}

type nmInterface struct {
	Name string `json:"name"`
	MAC  string `json:"mac"`
}

type bmhSpec struct {
	Namespace   string            `json:"namespace"`
	Name        string            `json:"name"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	BootMAC     string            `json:"bootMAC"`
	Online      bool              `json:"online"`
	RootHints   map[string]string `json:"rootHints,omitempty"`
}

type agentSpec struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Approved  bool   `json:"approved,omitempty"`
	Role      string `json:"role,omitempty"`
	Hostname  string `json:"hostname,omitempty"`
}

// refusal is why the engine refused a bundle or one of its objects: the
// fix a site author must make. It shows as an Accepted=False condition on
// the object.
type refusal struct {
	Object  objectRef `json:"object"`
	Reason  string    `json:"reason"`
	Message string    `json:"message"`
}

// Refusal reasons (siteops's own, on the Accepted condition).
const (
	condAccepted          = "Accepted"
	reasonOwnedElsewhere  = "OwnedByAnotherSite"
	reasonDuplicateMAC    = "DuplicateMAC"
	reasonInvalidSpec     = "InvalidSpec"
	reasonImmutable       = "ImmutableFieldChanged"
	reasonTooManyClusters = "MoreThanOneCluster"
)

var versionRE = regexp.MustCompile(`(\d+)\.(\d+)(\.\d+)?`)

// parseBundle reduces a bundle to the desired state. Problems that make
// the bundle contradict itself are returned as refusals.
func parseBundle(b *render.Bundle) (*desired, []refusal) {
	d := &desired{}
	var refs []refusal
	macs := map[string]objectRef{}
	for _, o := range b.Objects {
		if o == nil || o.Content == nil {
			continue
		}
		ref := objectRef{Kind: o.Kind, Namespace: o.Namespace, Name: o.Name, Wave: o.Wave}
		d.Objects = append(d.Objects, ref)
		c := o.Content
		switch o.Kind {
		case render.KindClusterDeployment:
			if d.CD != nil {
				refs = append(refs, refusal{ref, reasonTooManyClusters, fmt.Sprintf("site %s renders a second ClusterDeployment (%s after %s/%s); a site installs one cluster: split it into two sites", b.Site, ref, d.CD.Namespace, d.CD.Name)})
				continue
			}
			d.CD = &cdSpec{
				Namespace: o.Namespace, Name: o.Name,
				ClusterName:      str(c, "spec", "clusterName"),
				BaseDomain:       intern(str(c, "spec", "baseDomain")),
				PullSecret:       intern(str(c, "spec", "pullSecretRef", "name")),
				Installed:        boolean(c, "spec", "installed"),
				PreserveOnDelete: boolean(c, "spec", "preserveOnDelete"),
				InstallRef:       str(c, "spec", "clusterInstallRef", "name"),
				Annotations:      fleetStrMap(c, "metadata", "annotations"),
			}
		case render.KindAgentClusterInstall:
			if d.ACI != nil {
				refs = append(refs, refusal{ref, reasonTooManyClusters, fmt.Sprintf("site %s renders a second AgentClusterInstall (%s); a site installs one cluster: split it into two sites", b.Site, ref)})
				continue
			}
			a, problem := parseACI(o)
			if problem != "" {
				refs = append(refs, refusal{ref, reasonInvalidSpec, fmt.Sprintf("site %s: %s: %s", b.Site, ref, problem)})
				continue
			}
			d.ACI = a
		case render.KindInfraEnv:
			ie, err := parseInfraEnv(o)
			if err != nil {
				refs = append(refs, refusal{ref, reasonInvalidSpec, fmt.Sprintf("site %s: %s: %v", b.Site, ref, err)})
				continue
			}
			d.InfraEnvs = append(d.InfraEnvs, ie)
		case render.KindNMStateConfig:
			n, err := parseNMState(o)
			if err != nil {
				refs = append(refs, refusal{ref, reasonInvalidSpec, fmt.Sprintf("site %s: %s: %v", b.Site, ref, err)})
				continue
			}
			d.NMStates = append(d.NMStates, n)
		case render.KindBareMetalHost:
			h := bmhSpec{
				Namespace: o.Namespace, Name: o.Name,
				Labels:      strMap(c, "metadata", "labels"),
				Annotations: strMap(c, "metadata", "annotations"),
				BootMAC:     strings.ToLower(str(c, "spec", "bootMACAddress")),
				Online:      boolean(c, "spec", "online"),
				RootHints:   scalarMap(c, "spec", "rootDeviceHints"),
			}
			if h.BootMAC == "" {
				refs = append(refs, refusal{ref, reasonInvalidSpec, fmt.Sprintf("site %s: %s has no spec.bootMACAddress; set the node's bootMACAddress so the host can be matched to its agent", b.Site, ref)})
				continue
			}
			if prev, dup := macs[h.BootMAC]; dup {
				refs = append(refs, refusal{ref, reasonDuplicateMAC, fmt.Sprintf("site %s: %s and %s both boot from MAC %s; give each node its own bootMACAddress", b.Site, prev, ref, h.BootMAC)})
				continue
			}
			macs[h.BootMAC] = ref
			if _, err := parseHardware(h.Annotations[AnnotationHardware]); err != nil {
				refs = append(refs, refusal{ref, reasonInvalidSpec, fmt.Sprintf("site %s: %s annotation %s: %v", b.Site, ref, AnnotationHardware, err)})
				continue
			}
			d.BMHs = append(d.BMHs, h)
		case "Agent":
			d.Agents = append(d.Agents, agentSpec{
				Namespace: o.Namespace, Name: o.Name,
				Approved: boolean(c, "spec", "approved"),
				Role:     str(c, "spec", "role"),
				Hostname: str(c, "spec", "hostname"),
			})
		case "Secret":
			d.Secrets = append(d.Secrets, o.Namespace+"/"+o.Name)
		case "ClusterImageSet":
			if d.ImageSets == nil {
				d.ImageSets = map[string]string{}
			}
			d.ImageSets[o.Name] = versionOf(str(c, "spec", "releaseImage"))
		}
	}
	if d.CD != nil && d.ACI != nil {
		cd := objectRef{Kind: render.KindClusterDeployment, Namespace: d.CD.Namespace, Name: d.CD.Name}
		aci := objectRef{Kind: render.KindAgentClusterInstall, Namespace: d.ACI.Namespace, Name: d.ACI.Name}
		switch {
		case d.CD.InstallRef != "" && (d.CD.InstallRef != d.ACI.Name || d.CD.Namespace != d.ACI.Namespace):
			refs = append(refs, refusal{cd, reasonInvalidSpec, fmt.Sprintf("site %s: %s spec.clusterInstallRef names AgentClusterInstall %s, but the site renders %s; make them match", b.Site, cd, d.CD.InstallRef, aci)})
		case d.ACI.CDRef != d.CD.Name:
			refs = append(refs, refusal{aci, reasonInvalidSpec, fmt.Sprintf("site %s: %s spec.clusterDeploymentRef names ClusterDeployment %s, but the site renders %s; make them match", b.Site, aci, d.ACI.CDRef, cd)})
		}
	}
	return d, refs
}

func parseACI(o *render.Object) (*aciSpec, string) {
	c := o.Content
	a := &aciSpec{
		Namespace: o.Namespace, Name: o.Name,
		CDRef:        str(c, "spec", "clusterDeploymentRef", "name"),
		ImageSet:     intern(str(c, "spec", "imageSetRef", "name")),
		NetworkType:  intern(str(c, "spec", "networking", "networkType")),
		PlatformType: intern(str(c, "spec", "platformType")),
		Hold:         boolean(c, "spec", "holdInstallation"),
		SSHKey:       intern(str(c, "spec", "sshPublicKey")),
		Annotations:  fleetStrMap(c, "metadata", "annotations"),
	}
	var err error
	for _, f := range []struct {
		key string
		dst *int
	}{{"controlPlaneAgents", &a.ControlPlane}, {"workerAgents", &a.Workers}, {"arbiterAgents", &a.Arbiters}} {
		if *f.dst, err = integer(c, "spec", "provisionRequirements", f.key); err != nil {
			return nil, "spec.provisionRequirements." + f.key + ": " + err.Error()
		}
		if *f.dst < 0 {
			return nil, "spec.provisionRequirements." + f.key + " is negative; use 0 or more"
		}
	}
	for _, n := range list(c, "spec", "networking", "clusterNetwork") {
		m, _ := n.(map[string]any)
		hp, err := integer(m, "hostPrefix")
		if err != nil {
			return nil, "spec.networking.clusterNetwork hostPrefix: " + err.Error()
		}
		a.ClusterNetworks = append(a.ClusterNetworks, assisted.ClusterNetwork{CIDR: str(m, "cidr"), HostPrefix: hp})
	}
	for _, n := range list(c, "spec", "networking", "machineNetwork") {
		m, _ := n.(map[string]any)
		a.MachineNetworks = append(a.MachineNetworks, str(m, "cidr"))
	}
	for _, n := range list(c, "spec", "networking", "serviceNetwork") {
		if s, ok := n.(string); ok {
			a.ServiceNetworks = append(a.ServiceNetworks, s)
		}
	}
	a.APIVIPs = stringsAt(c, "spec", "apiVIPs")
	if v := str(c, "spec", "apiVIP"); v != "" && len(a.APIVIPs) == 0 {
		a.APIVIPs = []string{v}
	}
	a.IngressVIPs = stringsAt(c, "spec", "ingressVIPs")
	if v := str(c, "spec", "ingressVIP"); v != "" && len(a.IngressVIPs) == 0 {
		a.IngressVIPs = []string{v}
	}
	a.LoadBalancer = str(c, "spec", "loadBalancer", "type")
	a.ManifestsRef = str(c, "spec", "manifestsRef", "name") != ""
	if spec, ok := c["spec"].(map[string]any); ok {
		if n, ok := spec["networking"].(map[string]any); ok {
			if v, ok := n["userManagedNetworking"].(bool); ok {
				a.UMN = &v
			}
		}
		b, _ := json.Marshal(spec)
		a.Spec = string(b)
	}
	if v := a.Annotations[assisted.AnnotationInstallConfigOverrides]; v != "" {
		var m struct {
			Networking struct {
				NetworkType string `json:"networkType"`
			} `json:"networking"`
		}
		if err := json.Unmarshal([]byte(v), &m); err != nil {
			a.OverridesError = err.Error()
		}
		a.OverridesNetworkType = m.Networking.NetworkType
	}
	return a, ""
}

// rawContent is an object's content in JSON, as the store keeps it: a
// third of the memory of the map for the InfraEnvs and NMStateConfigs
// every site keeps. A value JSON cannot hold (a YAML .nan or .inf) is an
// error the site is refused with, as the API server would refuse it.
func rawContent(c map[string]any) (json.RawMessage, error) {
	b, err := json.Marshal(c)
	if err != nil {
		if field := unencodable(c, ""); field != "" {
			return nil, fmt.Errorf("field %s holds a value JSON cannot hold (%v): remove it from the site", field, err)
		}
		return nil, fmt.Errorf("content cannot be encoded as JSON (%v): remove the value from the site", err)
	}
	return b, nil
}

// unencodable returns the path, below at, of the first value of v (keys
// in order) that JSON cannot hold: a float that is not a number or is
// infinite (YAML's .nan and .inf). "" when there is none.
func unencodable(v any, at string) string {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			p := k
			if at != "" {
				p = at + "." + k
			}
			if f := unencodable(x[k], p); f != "" {
				return f
			}
		}
	case []any:
		for i, e := range x {
			if f := unencodable(e, fmt.Sprintf("%s[%d]", at, i)); f != "" {
				return f
			}
		}
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return at
		}
	}
	return ""
}

// contentMap is an object's content as a map: the one Apply parsed while
// it holds it, else decoded from the JSON (as a restarted engine reads it
// from the store).
func contentMap(m map[string]any, raw json.RawMessage) (map[string]any, error) {
	if m != nil || raw == nil {
		return m, nil
	}
	var out map[string]any
	err := json.Unmarshal(raw, &out)
	return out, err
}

// dropContent lets go of the content maps parsed from the bundle once
// Apply measured the discovery ignitions: the engine keeps the JSON.
func (d *desired) dropContent() {
	for i := range d.InfraEnvs {
		d.InfraEnvs[i].Content = nil
	}
	for i := range d.NMStates {
		d.NMStates[i].Content = nil
	}
}

// specDigest identifies an object's spec.
func specDigest(c map[string]any) string {
	b, _ := json.Marshal(c["spec"])
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

func parseInfraEnv(o *render.Object) (infraEnvSpec, error) {
	c := o.Content
	raw, err := rawContent(c)
	if err != nil {
		return infraEnvSpec{}, err
	}
	ie := infraEnvSpec{
		Namespace: o.Namespace, Name: o.Name,
		Selector:    strMap(c, "spec", "nmStateConfigLabelSelector", "matchLabels"),
		AgentLabels: strMap(c, "spec", "agentLabels"),
		Arch:        str(c, "spec", "cpuArchitecture"),
		OSVersion:   str(c, "spec", "osImageVersion"),
		Override:    str(c, "spec", "ignitionConfigOverride"),
		Raw:         raw,
		Content:     c,
		Digest:      specDigest(c),
	}
	if name := str(c, "spec", "clusterRef", "name"); name != "" {
		ns := str(c, "spec", "clusterRef", "namespace")
		if ns == "" {
			ns = o.Namespace
		}
		ie.ClusterRef = ns + "/" + name
	}
	for _, ka := range list(c, "spec", "kernelArguments") {
		m, _ := ka.(map[string]any)
		if op := str(m, "operation"); op != "" && op != "append" {
			ie.KernelArgsProblem = "Only kernel argument operation append is supported.  Got " + op
		}
	}
	return ie, nil
}

func parseNMState(o *render.Object) (nmStateSpec, error) {
	c := o.Content
	raw, err := rawContent(c)
	if err != nil {
		return nmStateSpec{}, err
	}
	n := nmStateSpec{Namespace: o.Namespace, Name: o.Name, Labels: strMap(c, "metadata", "labels"), Raw: raw, Content: c, Digest: specDigest(c)}
	for _, i := range list(c, "spec", "interfaces") {
		m, _ := i.(map[string]any)
		n.Interfaces = append(n.Interfaces, nmInterface{Name: str(m, "name"), MAC: strings.ToLower(str(m, "macAddress"))})
	}
	for _, i := range list(c, "spec", "config", "interfaces") {
		m, _ := i.(map[string]any)
		name := str(m, "name")
		for _, fam := range []string{"ipv4", "ipv6"} {
			for _, a := range list(m, fam, "address") {
				am, _ := a.(map[string]any)
				ip := str(am, "ip")
				pl, err := integer(am, "prefix-length")
				if ip == "" || err != nil {
					continue
				}
				if n.Addresses == nil {
					n.Addresses = map[string][]string{}
				}
				n.Addresses[name] = append(n.Addresses[name], ip+"/"+strconv.Itoa(pl))
			}
		}
	}
	for _, r := range list(c, "spec", "config", "routes", "config") {
		m, _ := r.(map[string]any)
		if d := str(m, "destination"); d == "0.0.0.0/0" || d == "::/0" {
			n.DefaultRoute = true
		}
	}
	return n, nil
}

// versionOf finds the OpenShift version in a release image or image-set
// name ("quay.io/...:4.20.6-x86_64", "openshift-4.20.6").
func versionOf(s string) string {
	return versionRE.FindString(s)
}

// imageSetVersion is the OpenShift version of the site's cluster: from a
// ClusterImageSet in the bundle, else from the image set's name (the
// ClusterImageSet itself is a hub object outside the site's bundle).
func (d *desired) imageSetVersion() string {
	if d.ACI == nil {
		return ""
	}
	if v, ok := d.ImageSets[d.ACI.ImageSet]; ok && v != "" {
		return v
	}
	return versionOf(d.ACI.ImageSet)
}

func (d *desired) bmh(ns, name string) *bmhSpec {
	for i := range d.BMHs {
		if d.BMHs[i].Namespace == ns && d.BMHs[i].Name == name {
			return &d.BMHs[i]
		}
	}
	return nil
}

func (d *desired) infraEnv(ns, name string) *infraEnvSpec {
	for i := range d.InfraEnvs {
		if d.InfraEnvs[i].Namespace == ns && d.InfraEnvs[i].Name == name {
			return &d.InfraEnvs[i]
		}
	}
	return nil
}

func (d *desired) agent(ns, name string) *agentSpec {
	for i := range d.Agents {
		if d.Agents[i].Namespace == ns && d.Agents[i].Name == name {
			return &d.Agents[i]
		}
	}
	return nil
}

// cdKey is the namespace/name of the site's ClusterDeployment.
func (d *desired) cdKey() string {
	if d.CD == nil {
		return ""
	}
	return d.CD.Namespace + "/" + d.CD.Name
}

// macs lists the boot MACs of the site's hosts.
func (d *desired) macs() []string {
	out := make([]string, 0, len(d.BMHs))
	for _, h := range d.BMHs {
		out = append(out, h.BootMAC)
	}
	sort.Strings(out)
	return out
}

// --- access to JSON-compatible content ---

func at(m map[string]any, keys ...string) any {
	var cur any = m
	for _, k := range keys {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[k]
	}
	return cur
}

func str(m map[string]any, keys ...string) string {
	s, _ := at(m, keys...).(string)
	return s
}

func boolean(m map[string]any, keys ...string) bool {
	switch v := at(m, keys...).(type) {
	case bool:
		return v
	case string:
		return v == "true"
	}
	return false
}

func integer(m map[string]any, keys ...string) (int, error) {
	switch v := at(m, keys...).(type) {
	case nil:
		return 0, nil
	case int:
		return v, nil
	case int64:
		return int(v), nil
	case float64:
		if v != float64(int(v)) {
			return 0, fmt.Errorf("%v is not a whole number", v)
		}
		return int(v), nil
	case json.Number:
		i, err := v.Int64()
		return int(i), err
	case string:
		i, err := strconv.Atoi(v)
		if err != nil {
			return 0, fmt.Errorf("%q is not a number", v)
		}
		return i, nil
	default:
		return 0, fmt.Errorf("%v is not a number", v)
	}
}

func list(m map[string]any, keys ...string) []any {
	l, _ := at(m, keys...).([]any)
	return l
}

func stringsAt(m map[string]any, keys ...string) []string {
	var out []string
	for _, v := range list(m, keys...) {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// strMap reads a map of strings (labels, annotations, selectors). Its
// keys are interned: every site's objects carry the same few keys.
func strMap(m map[string]any, keys ...string) map[string]string {
	return stringMap(m, false, keys...)
}

// fleetStrMap is strMap for the maps whose values too are usually the
// same across a fleet (the ClusterDeployment's and AgentClusterInstall's
// annotations: sync waves, install-config overrides): they are interned.
func fleetStrMap(m map[string]any, keys ...string) map[string]string {
	return stringMap(m, true, keys...)
}

func stringMap(m map[string]any, internValues bool, keys ...string) map[string]string {
	mm, _ := at(m, keys...).(map[string]any)
	if len(mm) == 0 {
		return nil
	}
	out := make(map[string]string, len(mm))
	for k, v := range mm {
		if s, ok := v.(string); ok {
			if internValues {
				s = intern(s)
			}
			out[intern(k)] = s
		}
	}
	return out
}

// maxInterned bounds the strings intern keeps alive. A fleet's shared
// strings are met with its first sites, so they are the ones kept; the
// bound stops site-specific values (an annotation naming the site) from
// growing the table with the fleet.
const maxInterned = 4096

// interned holds the strings intern keeps alive. unique.Make alone shares
// a string only until the next garbage collection after its last handle
// is dropped: the sites applied after it would get new copies.
var interned struct {
	sync.RWMutex
	m map[string]string
}

// intern returns the one copy of a string that many sites hold (a key,
// an SSH key, an image set name): the engine keeps a bundle of every
// site, and the renderer gives each its own copy. Strings of one site
// alone are not interned: the table would cost more than it saves.
func intern(s string) string {
	if s == "" {
		return ""
	}
	interned.RLock()
	v, ok := interned.m[s]
	interned.RUnlock()
	if ok {
		return v
	}
	v = unique.Make(s).Value()
	interned.Lock()
	defer interned.Unlock()
	if kept, ok := interned.m[s]; ok {
		return kept
	}
	if len(interned.m) < maxInterned {
		if interned.m == nil {
			interned.m = make(map[string]string)
		}
		interned.m[v] = v
	}
	return v
}

// scalarMap reads a map of scalars as strings (root device hints).
func scalarMap(m map[string]any, keys ...string) map[string]string {
	mm, _ := at(m, keys...).(map[string]any)
	if len(mm) == 0 {
		return nil
	}
	out := make(map[string]string, len(mm))
	for k, v := range mm {
		out[k] = fmt.Sprint(v)
	}
	return out
}
