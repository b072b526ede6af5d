package render

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	v32 "github.com/coreos/ignition/v2/config/v3_2"
	"github.com/coreos/ignition/v2/config/v3_2/types"
	"github.com/coreos/ignition/v2/config/validate"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	aiv1beta1 "github.com/siteops/siteops/apis/agentinstall/v1beta1"
	"github.com/siteops/siteops/internal/yamlenc"
)

// The discovery Ignition is the config the discovery ISO of an InfraEnv boots
// with: it starts the agent that registers the host. assisted-service builds it
// from a template (internal/ignition/templates/discovery.ign), merges the
// InfraEnv's ignitionConfigOverride into it, and refuses the InfraEnv when the
// config, packed the way it is embedded in the ISO, exceeds 256 KiB
// (ValidateIgnitionImageSize in internal/cluster/validations/validations.go).
// DiscoveryIgnition builds the same config from the rendered objects, so that
// its size is known before anything is applied.
//
// Values that live on the hub, not in the site (the service URL, the agent
// image, the pull secret's content, the agent's token) are placeholders of
// realistic length and entropy: the size stays realistic, and no secret is
// ever read or copied.

// DiscoveryIgnitionLimit is assisted-service's limit on the discovery Ignition,
// packed as in the ISO: IgnitionImageSizePadding, 256 KiB
// (openshift/assisted-service internal/cluster/validations/validations.go).
const DiscoveryIgnitionLimit = 256 << 10

// DiscoveryIgnitionWarn is the size above which a discovery Ignition is
// reported before it fails: 80 % of the limit. The hub adds to the config
// what a site does not show (mirror registries and their CA, the hub's CA
// bundle, a longer service URL), often several KiB each, and day-2 nodes add
// NMStateConfigs to the same InfraEnv later: a site near the limit in Git
// can be over it on the hub.
const DiscoveryIgnitionWarn = DiscoveryIgnitionLimit * 4 / 5

// discoveryVersion is the Ignition version of assisted-service's discovery
// template (openshift/assisted-service
// internal/ignition/templates/discovery.ign); an override merged into it makes
// the result 3.2.0, the version assisted-service parses configs to
// (ParseToLatest in internal/common/ignition/ignition.go).
const discoveryVersion = "3.1.0"

// Hub-side values of the discovery config (FormatDiscoveryIgnitionFile in
// openshift/assisted-service internal/ignition/discovery.go), as placeholders
// of the length a hub usually has.
const (
	// discoveryServiceURL stands for SERVICE_BASE_URL, the assisted-service
	// route on the hub.
	discoveryServiceURL = "https://assisted-service-multicluster-engine.apps.hub.siteops.invalid"
	// discoveryAgentImage stands for AGENT_DOCKER_IMAGE, pinned by digest.
	discoveryAgentImage = "registry.redhat.io/multicluster-engine/assisted-installer-agent-rhel9@sha256:" +
		"5f0c3a1e9d2b7c4a6e8f0b1d3c5e7a9b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c"
	// pullSecretPlaceholderSize is the length of a typical OpenShift pull
	// secret (four registries: cloud.openshift.com, quay.io,
	// registry.connect.redhat.com, registry.redhat.io).
	pullSecretPlaceholderSize = 2900
	// agentTokenPlaceholderSize is the length of the signed token the agent
	// authenticates with (PULL_SECRET_TOKEN).
	agentTokenPlaceholderSize = 400
	// staticNetworkDir is where the static network files go (tempNMConnectionsDir).
	staticNetworkDir = "/etc/assisted/network"
)

// Discovery is the discovery Ignition of one InfraEnv.
type Discovery struct {
	// Config is the config, in Ignition 3.2 types. Its version is 3.1.0,
	// the template's, unless an override was merged in (then 3.2.0).
	Config types.Config
	// JSON is the config as served; len(JSON) is its size.
	JSON []byte
	// NMStateConfigs is how many NMStateConfigs went into it.
	NMStateConfigs int
}

// Release hands the config's JSON back for a later DiscoveryIgnition to
// write into; d.JSON is nil afterwards. A caller that needs only the size
// (a check of every site of a fleet) releases each config once it is
// measured, and the JSON of the next one costs no allocation.
func (d *Discovery) Release() {
	if b := d.JSON; b != nil && cap(b) <= maxPooledJSON {
		jsonBuffers.Put(&b)
	}
	d.JSON = nil
}

// jsonBuffers holds released configs' buffers; maxPooledJSON is the
// largest kept (a config near the 256 KiB limit is rare).
var jsonBuffers sync.Pool

const maxPooledJSON = 1 << 20

// DiscoveryIgnition builds the discovery Ignition for one InfraEnv object
// with the static network config of the given NMStateConfig objects (the
// caller picks those the InfraEnv's nmStateConfigLabelSelector matches,
// with NMStateSelectorMatches, from every namespace as upstream does). It
// reads only the objects: the pull secret is referenced, never read. The
// error is about the InfraEnv (an ignition override that does not parse or
// merge), naming it.
func DiscoveryIgnition(infraEnv *Object, nmStateConfigs []*Object) (*Discovery, error) {
	if infraEnv == nil || infraEnv.Kind != KindInfraEnv {
		return nil, fmt.Errorf("discovery ignition: not an InfraEnv")
	}
	spec, _ := infraEnv.Map()["spec"].(map[string]any)
	b := discoveryBuilder{
		id:       infraEnvID(infraEnv.Namespace, infraEnv.Name),
		cfg:      types.Config{Ignition: types.Ignition{Version: discoveryVersion}},
		proxy:    proxyOf(spec),
		ntp:      stringsOf(spec["additionalNTPSources"]),
		trust:    strOf(spec, "additionalTrustBundle"),
		sshKeys:  strOf(spec, "sshAuthorizedKey"),
		override: strOf(spec, "ignitionConfigOverride"),
	}
	hosts, err := staticNetworkHosts(nmStateConfigs)
	if err != nil {
		return nil, fmt.Errorf("discovery ignition of InfraEnv %s/%s: %w", infraEnv.Namespace, infraEnv.Name, err)
	}
	b.build(hosts)
	d := &Discovery{Config: b.cfg, NMStateConfigs: len(nmStateConfigs)}
	if b.override != "" {
		if d.Config, err = mergeOverride(b.cfg, b.override); err != nil {
			return nil, fmt.Errorf("discovery ignition of InfraEnv %s/%s: %w", infraEnv.Namespace, infraEnv.Name, err)
		}
	}
	if b.override == "" {
		d.JSON = builtConfigJSON(&d.Config)
	} else if d.JSON, err = json.Marshal(d.Config); err != nil {
		return nil, fmt.Errorf("discovery ignition of InfraEnv %s/%s: %w", infraEnv.Namespace, infraEnv.Name, err)
	}
	return d, nil
}

// mergeOverride merges an InfraEnv's ignitionConfigOverride into the
// discovery config as assisted-service does (MergeIgnitionConfig): both
// are parsed to 3.2 (the override may be 3.0 to 3.2), merged with
// Ignition's own merge, and the result must validate.
func mergeOverride(base types.Config, override string) (types.Config, error) {
	over, rpt, err := v32.ParseCompatibleVersion([]byte(override))
	if err != nil {
		if rpt.IsFatal() {
			return types.Config{}, fmt.Errorf("the ignitionConfigOverride does not parse: %s", strings.TrimSpace(rpt.String()))
		}
		return types.Config{}, fmt.Errorf("the ignitionConfigOverride does not parse: %w", err)
	}
	base.Ignition.Version = types.MaxVersion.String()
	merged := v32.Merge(base, over)
	if rpt := validate.ValidateWithContext(merged, nil); rpt.IsFatal() {
		return types.Config{}, fmt.Errorf("the discovery config with the ignitionConfigOverride merged in is invalid: %s", strings.TrimSpace(rpt.String()))
	}
	return merged, nil
}

// NMStateSelectorMatches reports whether an InfraEnv's
// nmStateConfigLabelSelector selects an NMStateConfig. As in assisted-service,
// namespaces do not matter and an empty selector selects nothing (the InfraEnv
// controller, openshift/assisted-service
// internal/controller/controllers/infraenv_controller.go). A selector that does
// not parse selects nothing either.
func NMStateSelectorMatches(infraEnv, nmStateConfig *Object) bool {
	if infraEnv == nil || nmStateConfig == nil || nmStateConfig.Kind != KindNMStateConfig {
		return false
	}
	spec, _ := infraEnv.Map()["spec"].(map[string]any)
	raw, _ := spec["nmStateConfigLabelSelector"].(map[string]any)
	var sel metav1.LabelSelector
	for k, v := range asMap(raw["matchLabels"]) {
		if s, ok := v.(string); ok {
			if sel.MatchLabels == nil {
				sel.MatchLabels = map[string]string{}
			}
			sel.MatchLabels[k] = s
		}
	}
	for _, e := range asList(raw["matchExpressions"]) {
		m := asMap(e)
		key, _ := m["key"].(string)
		op, _ := m["operator"].(string)
		sel.MatchExpressions = append(sel.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: key, Operator: metav1.LabelSelectorOperator(op), Values: stringsOf(m["values"])})
	}
	if len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		return false
	}
	s, err := metav1.LabelSelectorAsSelector(&sel)
	if err != nil {
		return false
	}
	return s.Matches(labels.Set(nmStateLabels(nmStateConfig)))
}

// nmStateLabels are an NMStateConfig's labels, from its typed form when
// it has one.
func nmStateLabels(o *Object) map[string]string {
	if t, ok := o.typed.(*aiv1beta1.NMStateConfig); ok && o.Content == nil {
		return t.GetLabels()
	}
	md, _ := o.Map()["metadata"].(map[string]any)
	var out map[string]string
	for k, v := range asMap(md["labels"]) {
		if s, ok := v.(string); ok {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = s
		}
	}
	return out
}

// nmStateFacts is what the discovery Ignition reads of an NMStateConfig:
// its nmstate document (nil: none) and its interfaces (name, MAC).
type nmStateFacts struct {
	config any
	itfs   [][2]string
}

// nmStateFactsOf reads an NMStateConfig's facts from its typed form when
// it has one, as its content map would give them, without building the
// map.
func nmStateFactsOf(o *Object) nmStateFacts {
	var f nmStateFacts
	if t, ok := o.typed.(*aiv1beta1.NMStateConfig); ok && o.Content == nil {
		// The nmstate document is put in by the prune tree (pruneFor);
		// without one, spec.config is null and pruned.
		if c, ok := o.prune.Replacing("spec", "config"); ok && c != nil {
			f.config = c
		}
		for _, itf := range t.Spec.Interfaces {
			if itf == nil {
				f.itfs = append(f.itfs, [2]string{})
				continue
			}
			f.itfs = append(f.itfs, [2]string{itf.Name, itf.MacAddress})
		}
		return f
	}
	spec, _ := o.Map()["spec"].(map[string]any)
	if c, ok := spec["config"]; ok && c != nil {
		f.config = c
	}
	for _, itf := range asList(spec["interfaces"]) {
		m := asMap(itf)
		name, _ := m["name"].(string)
		mac, _ := m["macAddress"].(string)
		f.itfs = append(f.itfs, [2]string{name, mac})
	}
	return f
}

// discoveryBuilder assembles the config of one InfraEnv in the template's
// order: user, units, files.
type discoveryBuilder struct {
	id                       string
	cfg                      types.Config
	proxy                    *discoveryProxy
	ntp                      []string
	trust, sshKeys, override string
	files                    []types.File
	units                    []types.Unit
}

type discoveryProxy struct{ http, https, no string }

func (b *discoveryBuilder) build(hosts []staticHost) {
	if p := b.proxy; p != nil {
		px := &b.cfg.Ignition.Proxy
		px.HTTPProxy, px.HTTPSProxy = optString(p.http), optString(p.https)
		for _, n := range strings.Split(p.no, ",") {
			if n = strings.TrimSpace(n); n != "" {
				px.NoProxy = append(px.NoProxy, types.NoProxyItem(n))
			}
		}
	}
	user := types.PasswdUser{Name: "core", PasswordHash: optString("!"), Groups: []types.Group{"sudo"}}
	for _, k := range strings.Split(b.sshKeys, "\n") {
		if k = strings.TrimSpace(k); k != "" {
			user.SSHAuthorizedKeys = append(user.SSHAuthorizedKeys, types.SSHAuthorizedKey(k))
		}
	}
	b.cfg.Passwd.Users = []types.PasswdUser{user}
	// The lists' lengths are known: grown by append, they would be
	// copied several times for every InfraEnv.
	b.units = make([]types.Unit, 0, 7)
	b.files = make([]types.File, 0, len(templateFiles)+len(staticNetworkFiles)+2*len(hosts)+3)

	b.unit("agent.service", b.agentUnit())
	b.unit("selinux.service", selinuxUnit)
	b.units = append(b.units, types.Unit{Name: "multipathd.service", Enabled: optBool(true)})
	b.unit("iscsistart.service", iscsistartUnit)
	b.unit("oci-eval-user-data.service", ociUserDataUnit)
	if len(hosts) > 0 {
		b.unit("pre-network-manager-config.service", preNetworkUnit)
	}
	if len(b.ntp) > 0 {
		b.unit("add-ntp-sources.service", ntpUnit)
	}

	for _, f := range templateFiles {
		b.file(f.path, f.mode, f.source)
	}
	if b.trust != "" {
		b.file("/etc/pki/ca-trust/source/anchors/assisted-infraenv-additional-trust-bundle.pem", 0o644, base64Data("", b.trust))
	}
	if len(hosts) > 0 {
		for _, f := range staticNetworkFiles {
			b.file(f.path, f.mode, f.source)
		}
		for i, h := range hosts {
			dir := fmt.Sprintf("%s/host%d/", staticNetworkDir, i)
			b.file(dir+"mac_interface.ini", 0o600, base64Data("text/plain", h.macMap))
			b.file(fmt.Sprintf("%symlFile%d.yml", dir, i), 0o600, base64Data("text/plain", h.policy))
		}
	}
	if p := b.proxy; p != nil {
		b.file("/etc/profile.d/proxy.sh", 0o644, base64Data("", profileProxy(p)))
	}
	if len(b.ntp) > 0 {
		b.file("/usr/local/bin/add-ntp-sources.sh", 0o755, base64Data("text/plain;charset=utf-8", ntpScript(b.ntp)))
	}
	b.cfg.Systemd.Units = b.units
	b.cfg.Storage.Files = b.files
}

func (b *discoveryBuilder) unit(name, contents string) {
	b.units = append(b.units, types.Unit{Name: name, Enabled: optBool(true), Contents: optString(contents)})
}

func (b *discoveryBuilder) file(path string, mode int, source string) {
	b.files = append(b.files, types.File{
		Node:          types.Node{Path: path, Overwrite: optBool(true), User: types.NodeUser{Name: optString("root")}},
		FileEmbedded1: types.FileEmbedded1{Mode: &mode, Contents: types.Resource{Source: &source}},
	})
}

// staticHost is the static network of one NMStateConfig as the discovery
// config carries it: an nmstate policy whose captures find each interface
// by MAC, and the MAC-to-name map (assisted-service's
// GenerateStaticNetworkConfigDataYAML, OpenShift 4.14 and later).
type staticHost struct{ policy, macMap string }

// staticNetworkHosts turns NMStateConfigs into the per-host static
// network files, ordered as assisted-service orders them (by network
// YAML, then by interfaces), so that the output does not depend on the
// order the objects come in.
func staticNetworkHosts(configs []*Object) ([]staticHost, error) {
	type host struct {
		yaml string
		itfs [][2]string // name, MAC
		macs string
	}
	hosts := make([]host, 0, len(configs))
	for _, o := range configs {
		facts := nmStateFactsOf(o)
		var h host
		if facts.config != nil {
			y, err := yamlenc.Marshal(facts.config)
			if err != nil {
				return nil, fmt.Errorf("NMStateConfig %s/%s: spec.config: %w", o.Namespace, o.Name, err)
			}
			h.yaml = string(y)
		}
		h.itfs = facts.itfs
		slices.SortFunc(h.itfs, func(a, b [2]string) int {
			if c := strings.Compare(a[0], b[0]); c != 0 {
				return c
			}
			return strings.Compare(a[1], b[1])
		})
		lines := make([]string, len(h.itfs))
		for i, itf := range h.itfs {
			lines[i] = itf[1] + "=" + itf[0]
		}
		slices.Sort(lines)
		h.macs = strings.Join(lines, "\n")
		hosts = append(hosts, h)
	}
	slices.SortStableFunc(hosts, func(a, b host) int {
		if c := strings.Compare(a.yaml, b.yaml); c != 0 {
			return c
		}
		return strings.Compare(a.macs, b.macs)
	})
	out := make([]staticHost, len(hosts))
	for i, h := range hosts {
		out[i] = staticHost{policy: nmPolicy(h.yaml, h.itfs), macMap: h.macs}
	}
	return out, nil
}

// nmPolicy writes a host's nmstate document as an nmstate policy: a
// capture per interface that finds it by MAC, and the desired state with
// each logical interface name replaced by what its capture found.
func nmPolicy(doc string, itfs [][2]string) string {
	var b strings.Builder
	b.WriteString("capture:\n")
	replace := make([]string, 0, 2*len(itfs))
	for j, itf := range itfs {
		n := strconv.Itoa(j)
		b.WriteString("  iface" + n + ": interfaces.mac-address == ")
		b.WriteString(strconv.Quote(strings.ToUpper(itf[1]))) // as %q writes it
		b.WriteByte('\n')
		if itf[0] != "" {
			replace = append(replace, itf[0], `"{{ capture.iface`+n+`.interfaces.0.name }}"`)
		}
	}
	b.WriteString("desiredState:\n")
	switch {
	case len(replace) == 2:
		// One interface, the usual case: the same replacement without a
		// Replacer's tables built for every config.
		doc = strings.ReplaceAll(doc, replace[0], replace[1])
	case len(replace) > 2:
		doc = strings.NewReplacer(replace...).Replace(doc)
	}
	// Indent the document under desiredState (yamlenc writes no blank
	// lines).
	doc = strings.TrimRight(doc, "\n")
	b.Grow(len(doc) + 2*strings.Count(doc, "\n") + 4)
	b.WriteString("  ")
	for {
		i := strings.IndexByte(doc, '\n')
		if i < 0 {
			break
		}
		b.WriteString(doc[:i+1])
		b.WriteString("  ")
		doc = doc[i+1:]
	}
	b.WriteString(doc + "\n")
	return b.String()
}

// infraEnvID is a stable stand-in for the InfraEnv's UUID, which the hub
// assigns: the same InfraEnv always gets the same one.
func infraEnvID(namespace, name string) string {
	h := sha256.Sum256([]byte(namespace + "/" + name))
	x := hex.EncodeToString(h[:16])
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

func proxyOf(spec map[string]any) *discoveryProxy {
	p := asMap(spec["proxy"])
	d := &discoveryProxy{http: strOf(p, "httpProxy"), https: strOf(p, "httpsProxy"), no: strOf(p, "noProxy")}
	if d.http == "" && d.https == "" {
		return nil // assisted-service sets no proxy without an HTTP(S) proxy
	}
	return d
}

// plainData is a data URL with the text percent-encoded, as the template
// writes short files.
func plainData(text string) string { return "data:," + url.PathEscape(text) }

// base64Data is a data URL with the text in base64.
func base64Data(mediaType, text string) string {
	return "data:" + mediaType + ";base64," + base64.StdEncoding.EncodeToString([]byte(text))
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func optBool(b bool) *bool { return &b }

func strOf(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func asMap(x any) map[string]any {
	m, _ := x.(map[string]any)
	return m
}

// asList reads a list of rendered content: []any, or []string and
// []map[string]any where a builder kept a typed slice.
func asList(x any) []any {
	switch l := x.(type) {
	case []any:
		return l
	case []map[string]any:
		out := make([]any, len(l))
		for i, m := range l {
			out[i] = m
		}
		return out
	case []string:
		out := make([]any, len(l))
		for i, s := range l {
			out[i] = s
		}
		return out
	}
	return nil
}

func stringsOf(x any) []string {
	var out []string
	for _, v := range asList(x) {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
