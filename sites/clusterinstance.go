package sites

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// ClusterInstanceAPIVersion is the only ClusterInstance version.
const ClusterInstanceAPIVersion = "siteconfig.open-cluster-management.io/v1alpha1"

// The ClusterInstance CRD's defaults and enumerations (stolostron/siteconfig
// api/v1alpha1/clusterinstance_types.go, and the CRD in
// internal/crdschema/crds). Defaults are applied before a document's keys are
// read, as the API server applies them on create.
const (
	DefaultCIArchitecture   = "x86_64"
	DefaultCIRole           = "master"
	DefaultCIIronicInspect  = "" // inspection on
	DefaultCIDiskEncryption = "none"
	DefaultPreservationMode = "None"
)

// ClusterInstance cluster types (stolostron/siteconfig
// api/v1alpha1/clusterinstance_types.go and clusterinstance_validation.go).
const (
	ClusterTypeCISNO       = "SNO"
	ClusterTypeCIHA        = "HighlyAvailable"
	ClusterTypeCIHosted    = "HostedControlPlane"
	ClusterTypeCIHAArbiter = "HighlyAvailableArbiter"
	RoleWorker             = "worker"
	RoleArbiter            = "arbiter"
)

// BootModes are the boot modes a BareMetalHost takes (the enum of
// spec.bootMode in metal3-io/baremetal-operator
// apis/v1alpha1/baremetalhost_types.go), for both formats.
var BootModes = []string{"UEFI", "UEFISecureBoot", "legacy"}

// ciEnums are the CRD's enumerations, by field path with list indexes
// replaced by [].
var ciEnums = map[string][]string{
	"spec.clusterType":                   {ClusterTypeCISNO, ClusterTypeCIHA, ClusterTypeCIHosted, ClusterTypeCIHAArbiter},
	"spec.networkType":                   {"OpenShiftSDN", "OVNKubernetes"},
	"spec.platformType":                  {"", "BareMetal", "None", "VSphere", "Nutanix", "External"},
	"spec.cpuArchitecture":               {"x86_64", "aarch64", "multi"},
	"spec.cpuPartitioningMode":           {"None", "AllNodes"},
	"spec.nodes[].role":                  {RoleMaster, RoleWorker, RoleArbiter},
	"spec.nodes[].bootMode":              BootModes,
	"spec.nodes[].automatedCleaningMode": {"metadata", "disabled"},
	"spec.nodes[].ironicInspect":         {"", "disabled"},
	"spec.nodes[].cpuArchitecture":       {"x86_64", "aarch64"},
}

// DefaultTemplateRefs are the operator's built-in Assisted Installer template
// sets, which siteops renders in Go (stolostron/siteconfig
// internal/templates/assisted-installer/template.go).
var DefaultTemplateRefs = struct{ Cluster, Node string }{"ai-cluster-templates-v1", "ai-node-templates-v1"}

// The CRD's patterns for MAC addresses. The one for bootMACAddress is not
// anchored, so the API server takes any value that contains a MAC; the one
// for nodeNetwork interfaces is.
var (
	macPattern     = regexp.MustCompile(`^([0-9A-Fa-f]{2}[:]){5}([0-9A-Fa-f]{2})$`)
	bootMACPattern = regexp.MustCompile(`[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}`)
)

// ValidMAC reports whether s is a MAC address as the ClusterInstance CRD
// writes them: six hex pairs separated by colons.
func ValidMAC(s string) bool { return macPattern.MatchString(s) }

func (s *ClusterInstanceSpec) setDefaults() {
	s.NetworkType = DefaultNetworkType
	s.CPUArchitecture = DefaultCIArchitecture
	s.CPUPartitioning = CPUPartitioningNone
}

func (n *NodeSpec) setDefaults() {
	n.Role = DefaultCIRole
	n.BootMode = DefaultBootMode
	n.AutomatedCleaningMode = DefaultAutomatedCleaningMode
	n.IronicInspect = DefaultCIIronicInspect
}

func (e *CIDiskEncryption) setDefaults() { e.Type = DefaultCIDiskEncryption }

func (r *ReinstallSpec) setDefaults() { r.PreservationMode = DefaultPreservationMode }

// Count returns the number of nodes with a role.
func (s *ClusterInstanceSpec) Count(role string) int {
	n := 0
	for i := range s.Nodes {
		if s.Nodes[i].Role == role {
			n++
		}
	}
	return n
}

// clusterInstanceGroup is the API group of ClusterInstance.
const clusterInstanceGroup = "siteconfig.open-cluster-management.io/"

// isClusterInstance reports whether a document is a ClusterInstance: its
// kind says so, or its apiVersion is in the ClusterInstance group (a
// misspelt kind is then warned about rather than silently skipped).
func isClusterInstance(body *yaml.Node) bool {
	if k := mappingValue(body, "kind"); k != nil && k.Value == "ClusterInstance" {
		return true
	}
	av := mappingValue(body, "apiVersion")
	return av != nil && strings.HasPrefix(av.Value, clusterInstanceGroup)
}

// decodeClusterInstance decodes one ClusterInstance document and checks what
// the CRD schema and the operator's webhook check on create
// (stolostron/siteconfig api/v1alpha1/clusterinstance_types.go,
// clusterinstance_webhook.go).
func decodeClusterInstance(file string, body *yaml.Node, budget *int, o decodeOptions) ([]*Site, Problems) {
	d := newNodeDecoder(file, budget)
	d.yaml11 = true
	ci := &ClusterInstance{}
	docPos := d.position(body)
	if !d.decode(body, reflect.ValueOf(ci).Elem(), "") {
		return nil, d.problems
	}
	name := printableName(ci.Spec.ClusterName)
	if ci.Spec.ClusterName == "" {
		name = printableName(ci.Metadata.Name)
	}
	broken := map[string]bool{}
	for i := range d.problems {
		d.problems[i].Site = name
		if d.problems[i].Severity == SeverityError {
			broken[d.problems[i].Field] = true
		}
	}
	v := &validator{file: file, fields: d.pos, docPos: docPos, site: name, broken: broken}
	v.checkClusterInstance(ci)
	problems := append(d.problems, v.problems...)
	problems.strictify(o.strict)
	if problems.HasErrors() {
		return nil, problems
	}
	ns := ci.Metadata.Namespace
	if ns == "" {
		ns = ci.Spec.ClusterName
	}
	return []*Site{{
		Name: ci.Spec.ClusterName, Namespace: ns, Format: FormatClusterInstance,
		Source: docPos, Instance: ci, fields: d.pos,
	}}, problems
}

// checkClusterInstance applies the CRD schema's rules (required fields,
// enumerations, patterns) and the webhook's shared checks
// (ValidateClusterInstance in stolostron/siteconfig
// api/v1alpha1/clusterinstance_validation.go).
func (v *validator) checkClusterInstance(ci *ClusterInstance) {
	s := &ci.Spec
	if ci.Kind != "ClusterInstance" {
		v.warn("kind", "kind is %q; the document is read as a ClusterInstance because of its apiVersion", clip(ci.Kind)).
			Hint = "write kind: ClusterInstance"
	}
	if ci.ApiVersion != ClusterInstanceAPIVersion {
		v.fail("apiVersion", "apiVersion %q is not a ClusterInstance version siteops reads", clip(ci.ApiVersion)).
			Hint = "use " + ClusterInstanceAPIVersion
	}
	v.required("spec", [][2]string{{"clusterName", s.ClusterName}, {"baseDomain", s.BaseDomain},
		{"clusterImageSetNameRef", s.ClusterImageSetNameRef}, {"pullSecretRef.name", s.PullSecretRef.Name}})
	v.required("metadata", [][2]string{{"name", ci.Metadata.Name}})
	if s.ClusterName != "" {
		if msg := nameProblem(s.ClusterName); msg != "" {
			v.fail("spec.clusterName", "%s", msg).Hint = nameHint
		}
	}
	for i, n := range s.MachineNetwork {
		v.required(fmt.Sprintf("spec.machineNetwork[%d]", i), [][2]string{{"cidr", n.CIDR}})
	}
	for i, n := range s.ClusterNetwork {
		v.required(fmt.Sprintf("spec.clusterNetwork[%d]", i), [][2]string{{"cidr", n.CIDR}})
	}
	for i, n := range s.ServiceNetwork {
		v.required(fmt.Sprintf("spec.serviceNetwork[%d]", i), [][2]string{{"cidr", n.CIDR}})
	}
	v.checkPrune("spec.pruneManifests", s.PruneManifests)
	if len(s.Nodes) == 0 && !v.broken["spec.nodes"] {
		v.fail("spec.nodes", "no nodes are defined").Hint = "add at least one entry under spec.nodes"
	}
	v.checkEnum("spec.clusterType", s.ClusterType, true)
	v.checkEnum("spec.networkType", s.NetworkType, false)
	v.checkEnum("spec.platformType", s.PlatformType, false)
	v.checkEnum("spec.cpuArchitecture", s.CPUArchitecture, false)
	v.checkEnum("spec.cpuPartitioningMode", string(s.CPUPartitioning), false)
	for _, f := range []struct {
		field string
		list  []string
	}{{"spec.apiVIPs", s.ApiVIPs}, {"spec.ingressVIPs", s.IngressVIPs}} {
		if len(f.list) > 2 {
			v.fail(f.field, "at most 2 entries (one per IP family), got %d", len(f.list))
		}
	}
	if s.Reinstall != nil {
		v.fail("spec.reinstall", "reinstall spec cannot be set during initial installation").
			Hint = "remove spec.reinstall from a new ClusterInstance"
	}
	v.checkTemplateRefs("spec.templateRefs", s.TemplateRefs, DefaultTemplateRefs.Cluster, "cluster-level")
	v.checkJSON("spec.installConfigOverrides", s.InstallConfigOverrides, "installConfigOverrides")
	v.checkJSON("spec.ignitionConfigOverride", s.IgnitionConfigOverride, "cluster-level ignitionConfigOverride")
	for i := range s.Nodes {
		v.checkCINode(fmt.Sprintf("spec.nodes[%d]", i), &s.Nodes[i])
	}
	v.checkNodeCounts(s)
	v.checkClusterInstanceNetworks(s)
}

// checkPrune requires apiVersion and kind in pruneManifests entries.
func (v *validator) checkPrune(field string, refs []ResourceRef) {
	for i, r := range refs {
		v.required(fmt.Sprintf("%s[%d]", field, i), [][2]string{{"apiVersion", r.APIVersion}, {"kind", r.Kind}})
	}
}

// required reports the fields of a (name, value) list that are empty.
func (v *validator) required(parent string, fields [][2]string) {
	for _, f := range fields {
		if p := parent + "." + f[0]; f[1] == "" && !v.broken[p] {
			v.fail(p, "%s is required", f[0])
		}
	}
}

var listIndex = regexp.MustCompile(`\[\d+\]`)

func (v *validator) checkEnum(field, value string, optional bool) {
	if optional && value == "" || v.broken[field] {
		return
	}
	v.checkOneOf(field, value, ciEnums[listIndex.ReplaceAllString(field, "[]")])
}

// checkOneOf refuses a value outside allowed, naming the values allowed.
func (v *validator) checkOneOf(field, value string, allowed []string) {
	if !slices.Contains(allowed, value) {
		names := make([]string, len(allowed))
		for i, a := range allowed {
			names[i] = fmt.Sprintf("%q", a)
		}
		v.fail(field, "%q is not allowed", clip(value)).Hint = "use one of " + strings.Join(names, ", ")
	}
}

func (v *validator) checkJSON(field, value, what string) {
	if value != "" && !json.Valid([]byte(value)) {
		v.fail(field, "%s is not a valid JSON-formatted string", what).Hint = "write valid JSON, e.g. '{\"key\": \"value\"}'"
	}
}

// DefaultTemplateNamespace is where the operator creates its default
// template sets (its own namespace, POD_NAMESPACE).
const DefaultTemplateNamespace = "open-cluster-management"

// otherInstallFlows are the operator's default template sets for the
// image-based and hosted-control-plane flows, which siteops does not render.
var otherInstallFlows = []string{"ibi-cluster-templates-v1", "ibi-node-templates-v1", "hcp-cluster-templates-v1", "hcp-node-templates-v1"}

// checkTemplateRefs requires template references, refuses the template sets
// of install flows siteops does not render, and warns about custom ones:
// siteops renders the built-in Assisted-Installer set in their place.
func (v *validator) checkTemplateRefs(field string, refs []TemplateRef, defaultName, level string) {
	if len(refs) == 0 {
		v.fail(field, "missing %s template reference", level).
			Hint = fmt.Sprintf("reference the default set: {name: %s, namespace: %s}", defaultName, DefaultTemplateNamespace)
		return
	}
	for i, r := range refs {
		f := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case r.Name == "" || r.Namespace == "":
			v.fail(f, "a template reference needs a name and a namespace")
		case slices.Contains(otherInstallFlows, r.Name):
			v.fail(f+".name", "template set %q is for an install flow siteops does not render (image-based or hosted control plane)", r.Name).
				Hint = "siteops renders the Assisted-Installer flow: " + defaultName
		case r.Name != defaultName:
			v.warn(f+".name", "custom template set %q is not rendered by siteops; the built-in %s set is used instead", clip(r.Name), defaultName)
		}
		// The default set's namespace is the operator's own, which differs
		// between installations (open-cluster-management,
		// multicluster-engine): a default name is taken as the default set.
	}
}

func (v *validator) checkCINode(np string, n *NodeSpec) {
	v.required(np, [][2]string{{"hostName", n.HostName}, {"bmcAddress", n.BmcAddress},
		{"bmcCredentialsName.name", n.BmcCredentialsName.Name}, {"bootMACAddress", n.BootMACAddress}})
	if n.BootMACAddress != "" && !bootMACPattern.MatchString(n.BootMACAddress) {
		v.fail(np+".bootMACAddress", "bootMACAddress is not a MAC address").Hint = "write six hex pairs separated by ':', e.g. 52:54:00:12:34:56"
	}
	if n.HostRef != nil {
		v.required(np+".hostRef", [][2]string{{"name", n.HostRef.Name}, {"namespace", n.HostRef.Namespace}})
	}
	v.checkPrune(np+".pruneManifests", n.PruneManifests)
	if n.NodeNetwork != nil {
		if n.NodeNetwork.Interfaces != nil && len(n.NodeNetwork.Interfaces) == 0 {
			v.fail(np+".nodeNetwork.interfaces", "interfaces needs at least one entry").Hint = "list the NICs the nmstate config names, with their MACs"
		}
		for i, itf := range n.NodeNetwork.Interfaces {
			v.required(fmt.Sprintf("%s.nodeNetwork.interfaces[%d]", np, i), [][2]string{{"name", itf.Name}})
			if !macPattern.MatchString(itf.MacAddress) {
				v.fail(fmt.Sprintf("%s.nodeNetwork.interfaces[%d].macAddress", np, i), "macAddress is not a MAC address").
					Hint = "write six hex pairs separated by ':'"
			}
		}
	}
	v.checkEnum(np+".role", n.Role, false)
	v.checkEnum(np+".bootMode", n.BootMode, false)
	v.checkEnum(np+".automatedCleaningMode", n.AutomatedCleaningMode, false)
	v.checkEnum(np+".ironicInspect", n.IronicInspect, false)
	v.checkEnum(np+".cpuArchitecture", n.CPUArchitecture, true)
	v.checkTemplateRefs(np+".templateRefs", n.TemplateRefs, DefaultTemplateRefs.Node, "node-level")
	v.checkJSON(np+".installerArgs", n.InstallerArgs, "installerArgs")
	v.checkJSON(np+".ignitionConfigOverride", n.IgnitionConfigOverride, "node-level ignitionConfigOverride")
}

// checkNodeCounts is the webhook's control-plane agent validation
// (validateControlPlaneAgentCount in stolostron/siteconfig
// api/v1alpha1/clusterinstance_validation.go).
func (v *validator) checkNodeCounts(s *ClusterInstanceSpec) {
	if v.broken["spec.nodes"] || len(s.Nodes) == 0 {
		return
	}
	masters, arbiters := s.Count(RoleMaster), s.Count(RoleArbiter)
	fail := func(msg string) {
		v.fail("spec.nodes", "control-plane agent validation failed: %s (counted %d control-plane, %d arbiter, %d worker nodes)",
			msg, masters, arbiters, s.Count(RoleWorker))
	}
	switch {
	case s.ClusterType == ClusterTypeCIHosted:
		if masters > 0 {
			fail("hosted control plane clusters must not have control-plane agents")
		}
		return
	case masters < 1:
		fail("at least 1 control-plane agent is required")
	case s.ClusterType == ClusterTypeCISNO && masters != 1:
		fail("single node OpenShift cluster-type must have exactly 1 control-plane agent")
	case s.ClusterType == ClusterTypeCIHAArbiter && (arbiters < 1 || masters < 2):
		fail("highly available arbiter cluster-type must have at least 1 arbiter agent and 2 control-plane agents")
	case s.ClusterType != ClusterTypeCIHAArbiter && arbiters > 0:
		fail("arbiter agents can only be used with HighlyAvailableArbiter cluster-type")
	}
}
