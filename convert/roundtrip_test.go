package convert

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// The round trip: rendering a converted ClusterInstance must give the same
// cluster as rendering the SiteConfig it came from. "The same cluster" is
// what the facts below hold: hosts, boot MACs, BMCs, static networking,
// cluster networks, VIPs, image set, labels and the other settings that
// reach the installer. Everything else that differs follows from the two
// upstream template sets, not from the conversion; templateDifferences
// lists those, each with a check that it is what the bundles show, so the
// list cannot go stale silently.

// templateDifferences are the differences between the SiteConfig
// generator's output and the SiteConfig operator's default
// Assisted-Installer templates for the same cluster (cnf-features-deploy
// ztp/siteconfig-generator/siteConfig/clusterCRsV1.go and clusterCRsV2.go;
// stolostron/siteconfig internal/templates/assisted-installer/template.go).
// The facts leave them out.
var templateDifferences = []struct {
	what  string
	check func(orig, ci *render.Bundle, hosts []string) error
}{
	{
		// SiteConfig: one InfraEnv per cluster, named after it, selecting
		// NMStateConfigs labelled nmstate-label=<cluster>; ClusterInstance:
		// one per node, named after the host, selecting nmstate-label=<host>.
		// The BareMetalHost's infraenvs.agent-install.openshift.io label
		// follows the InfraEnv name.
		what: "one InfraEnv per cluster vs one per node",
		check: func(orig, ci *render.Bundle, hosts []string) error {
			if n := names(orig, "InfraEnv"); len(n) > 1 {
				return fmt.Errorf("SiteConfig InfraEnvs %v, want at most one", n)
			}
			// Unless the InfraEnv kind is suppressed, there is one per host.
			if got := names(ci, "InfraEnv"); !slices.Equal(got, hosts) && !slices.Contains(ci.Suppressed, "InfraEnv") && len(got)+len(suppressedOf(ci, "InfraEnv")) != len(hosts) {
				return fmt.Errorf("ClusterInstance InfraEnvs %v, want one per host %v", got, hosts)
			}
			return nil
		},
	},
	{
		// ClusterInstance renders no Namespace: the ClusterInstance is
		// created in it, so it must exist first (a manual-step note).
		what: "no Namespace object",
		check: func(orig, ci *render.Bundle, _ []string) error {
			if len(names(ci, "Namespace")) > 0 {
				return fmt.Errorf("the ClusterInstance rendered a Namespace")
			}
			return nil
		},
	},
	{
		// The extra-manifest ConfigMap, the v2 site ConfigMap and the
		// HostFirmwareSettings are built by the generator from files;
		// ClusterInstance only references ConfigMaps and has no BIOS
		// profiles (manual-step notes).
		what: "no ConfigMap or HostFirmwareSettings objects",
		check: func(orig, ci *render.Bundle, _ []string) error {
			if n := len(names(ci, "ConfigMap")) + len(names(ci, "HostFirmwareSettings")); n > 0 {
				return fmt.Errorf("the ClusterInstance rendered %d ConfigMaps or HostFirmwareSettings", n)
			}
			return nil
		},
	},
	{
		// Argo CD orders the generator's objects by argocd.argoproj.io/sync-wave;
		// the operator orders its own by siteconfig.open-cluster-management.io/sync-wave.
		what: "the sync-wave annotation key",
		check: func(orig, ci *render.Bundle, _ []string) error {
			return everyObject(ci, func(o *render.Object) error {
				if _, ok := annotations(o)[render.AnnotationCISyncWave]; !ok {
					return fmt.Errorf("%s has no %s", o.Ref(), render.AnnotationCISyncWave)
				}
				return nil
			})
		},
	},
	{
		// The generator marks everything ran.openshift.io/ztp-gitops-generated;
		// the operator labels everything siteconfig.open-cluster-management.io/owned-by
		// (it tracks ownership by label), and BareMetalHosts with the ACM
		// backup label.
		what: "ztp-gitops-generated annotation vs owned-by label",
		check: func(orig, ci *render.Bundle, _ []string) error {
			return everyObject(ci, func(o *render.Object) error {
				if labels(o)[render.LabelCIOwnedBy] == "" {
					return fmt.Errorf("%s has no owned-by label", o.Ref())
				}
				return nil
			})
		},
	},
	{
		// SiteConfig renders apiVIP/ingressVIP and (v1) manifestsConfigMapRef
		// as written; ClusterInstance only the lists (the VIP facts
		// compare the addresses), so an installed cluster's
		// AgentClusterInstall changes shape (a changed note).
		what:  "AgentClusterInstall singular fields",
		check: nil,
	},
	{
		// The operator's templates write explicit zero values the
		// generator leaves out: networking: null, workerAgents: 0,
		// arbiterAgents: 0, holdInstallation: false, empty sshPublicKey,
		// ignitionConfigOverride and inspect.metal3.io; and the
		// BareMetalHost's spec.architecture and the InfraEnv's
		// cpuArchitecture (x86_64 by default). The facts normalize zero
		// values away.
		what:  "explicit zero values and the CPU architecture",
		check: nil,
	},
	{
		// The ManagedCluster template writes vendor/cloud auto-detect
		// itself (template keys win over extraLabels); the generator only
		// filled them in when missing. A cluster label vendor or cloud is
		// a changed note, and the facts expect auto-detect for it.
		what:  "ManagedCluster vendor and cloud labels",
		check: nil,
	},
}

// facts is what must survive the conversion.
type facts struct {
	Hosts       []string
	BootMACs    map[string]string
	BMCs        map[string]string // host → address credentials
	Roles       map[string]string
	BMHSpec     map[string]string // host → boot mode, cleaning mode, root device hints
	BMHNotes    map[string]string // host → installer args, ignition, inspection, node labels
	NMState     map[string]string // host → interfaces and config
	Networks    string            // machine, cluster, service
	APIVIPs     []string
	IngressVIPs []string
	ImageSet    string
	Install     string // base domain, pull secret, SSH key, agents, overrides, hold, proxy
	InfraEnv    string // what every InfraEnv carries: SSH key, proxy, NTP, ignition, pull secret
	MCLabels    map[string]string
	Suppressed  []string // kinds of cluster objects not rendered
}

func factsOf(b *render.Bundle) facts {
	f := facts{BootMACs: map[string]string{}, BMCs: map[string]string{}, Roles: map[string]string{},
		BMHSpec: map[string]string{}, BMHNotes: map[string]string{}, NMState: map[string]string{}, MCLabels: map[string]string{}}
	for _, o := range objects(b, "BareMetalHost") {
		h := o.Name
		f.Hosts = append(f.Hosts, h)
		f.BootMACs[h] = dig(o.Content, "spec", "bootMACAddress")
		f.BMCs[h] = dig(o.Content, "spec", "bmc", "address") + " " + dig(o.Content, "spec", "bmc", "credentialsName")
		ann := annotations(o)
		f.Roles[h] = ann["bmac.agent-install.openshift.io/role"]
		f.BMHSpec[h] = dig(o.Content, "spec", "bootMode") + " " + dig(o.Content, "spec", "automatedCleaningMode") + " " +
			dig(o.Content, "spec", "rootDeviceHints") + " online=" + dig(o.Content, "spec", "online")
		var notes []string
		for _, k := range sortedKeys(ann) {
			switch {
			case strings.HasPrefix(k, "bmac.agent-install.openshift.io") && k != "bmac.agent-install.openshift.io/role",
				k == "inspect.metal3.io" && ann[k] != "":
				notes = append(notes, k+"="+ann[k])
			}
		}
		f.BMHNotes[h] = strings.Join(notes, "\n")
	}
	slices.Sort(f.Hosts)
	for _, o := range objects(b, "NMStateConfig") {
		f.NMState[o.Name] = dig(o.Content, "spec", "interfaces") + " " + dig(o.Content, "spec", "config")
	}
	if aci := first(b, "AgentClusterInstall"); aci != nil {
		f.Networks = dig(aci.Content, "spec", "networking", "machineNetwork") + " " +
			dig(aci.Content, "spec", "networking", "clusterNetwork") + " " + dig(aci.Content, "spec", "networking", "serviceNetwork")
		f.APIVIPs = vips(aci.Content, "apiVIP")
		f.IngressVIPs = vips(aci.Content, "ingressVIP")
		f.ImageSet = dig(aci.Content, "spec", "imageSetRef", "name")
		f.Install = strings.Join([]string{dig(aci.Content, "spec", "sshPublicKey"),
			dig(aci.Content, "spec", "provisionRequirements", "controlPlaneAgents"),
			dig(aci.Content, "spec", "provisionRequirements", "workerAgents"),
			// The operator's template writes the overrides in quotes, so a
			// multi-line value folds into one line: compare the JSON.
			canonicalJSON(annotations(aci)["agent-install.openshift.io/install-config-overrides"]),
			dig(aci.Content, "spec", "holdInstallation"), dig(aci.Content, "spec", "proxy")}, " | ")
	} else {
		f.Suppressed = append(f.Suppressed, "AgentClusterInstall")
	}
	if cd := first(b, "ClusterDeployment"); cd != nil {
		f.Install += " | " + dig(cd.Content, "spec", "baseDomain") + " " + dig(cd.Content, "spec", "pullSecretRef")
	} else {
		f.Suppressed = append(f.Suppressed, "ClusterDeployment")
	}
	for _, o := range objects(b, "InfraEnv") {
		f.InfraEnv = strings.Join([]string{dig(o.Content, "spec", "sshAuthorizedKey"), dig(o.Content, "spec", "proxy"),
			dig(o.Content, "spec", "additionalNTPSources"), dig(o.Content, "spec", "ignitionConfigOverride"),
			dig(o.Content, "spec", "pullSecretRef")}, " | ")
	}
	if mc := first(b, "ManagedCluster"); mc != nil {
		for k, v := range labels(mc) {
			if k != render.LabelCIOwnedBy {
				f.MCLabels[k] = v
			}
		}
	} else {
		f.Suppressed = append(f.Suppressed, "ManagedCluster")
	}
	if first(b, "KlusterletAddonConfig") == nil {
		f.Suppressed = append(f.Suppressed, "KlusterletAddonConfig")
	}
	return f
}

// expectReported adjusts the SiteConfig's facts for what the conversion
// reported as changed: those differences are the conversion's stated
// result, not a failure.
func expectReported(f *facts, report []Note) {
	label := regexp.MustCompile(`clusterLabels\.(vendor|cloud)$`)
	for _, n := range report {
		if n.Kind != Changed {
			continue
		}
		switch m := label.FindStringSubmatch(n.Field); {
		case m != nil:
			f.MCLabels[m[1]] = "auto-detect"
		case strings.HasSuffix(n.Field, ".role"):
			for h, r := range f.Roles {
				if r != sites.RoleMaster && r != sites.RoleWorker {
					f.Roles[h] = sites.RoleWorker // "" and odd roles, as the note says
					if r == "" {
						f.Roles[h] = sites.RoleMaster
					}
				}
			}
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, c := range corpora {
		t.Run(c.name, func(t *testing.T) {
			r, all := convertCorpus(t, c)
			for _, cv := range all {
				t.Run(cv.orig.Name, func(t *testing.T) {
					orig, problems := r.Render(cv.orig)
					if orig == nil {
						t.Fatalf("the SiteConfig does not render: %v", problems)
					}
					ci, problems := renderCI(cv.ci)
					if ci == nil {
						t.Fatalf("the converted ClusterInstance does not render: %v", problems)
					}
					want, got := factsOf(orig), factsOf(ci)
					expectReported(&want, cv.result.Report)
					compareFacts(t, want, got)
					for _, d := range templateDifferences {
						if d.check == nil {
							continue
						}
						if err := d.check(orig, ci, got.Hosts); err != nil {
							t.Errorf("template difference %q is not as documented: %v", d.what, err)
						}
					}
				})
			}
		})
	}
}

// renderCI renders a ClusterInstance site; a panic in the renderer is a
// failure of this test, not of the whole run.
func renderCI(s *sites.Site) (b *render.Bundle, problems sites.Problems) {
	defer func() {
		if r := recover(); r != nil {
			b, problems = nil, sites.Problems{s.Problem("", "render panicked: %v", r)}
		}
	}()
	return render.New().Render(s)
}

func compareFacts(t *testing.T, want, got facts) {
	t.Helper()
	wv, gv := reflect.ValueOf(want), reflect.ValueOf(got)
	for i := range wv.NumField() {
		name := wv.Type().Field(i).Name
		if w, g := wv.Field(i).Interface(), gv.Field(i).Interface(); !reflect.DeepEqual(w, g) {
			t.Errorf("%s differs:\n SiteConfig:      %v\n ClusterInstance: %v", name, w, g)
		}
	}
}

func objects(b *render.Bundle, kind string) []*render.Object {
	var out []*render.Object
	for _, o := range b.Objects {
		if o.Kind == kind {
			out = append(out, o)
		}
	}
	return out
}

func first(b *render.Bundle, kind string) *render.Object {
	if objs := objects(b, kind); len(objs) > 0 {
		return objs[0]
	}
	return nil
}

func names(b *render.Bundle, kind string) []string {
	var out []string
	for _, o := range objects(b, kind) {
		out = append(out, o.Name)
	}
	slices.Sort(out)
	return out
}

func everyObject(b *render.Bundle, check func(*render.Object) error) error {
	for _, o := range b.Objects {
		if err := check(o); err != nil {
			return err
		}
	}
	return nil
}

func annotations(o *render.Object) map[string]string {
	return stringsAt(o.Content, "metadata", "annotations")
}
func labels(o *render.Object) map[string]string { return stringsAt(o.Content, "metadata", "labels") }

func stringsAt(m map[string]any, keys ...string) map[string]string {
	out := map[string]string{}
	v, _ := at(m, keys...).(map[string]any)
	for k, e := range v {
		out[k], _ = e.(string)
	}
	return out
}

func at(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = obj[k]
	}
	return v
}

// dig formats a value for comparison, with zero values (nil, "", false,
// 0, empty lists and maps) all as "", since the two template sets differ
// on writing them out.
func dig(m map[string]any, keys ...string) string {
	v := at(m, keys...)
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		if !x {
			return ""
		}
	case map[string]any:
		if len(x) == 0 {
			return ""
		}
	case []any:
		if len(x) == 0 {
			return ""
		}
	case int64:
		if x == 0 {
			return ""
		}
	}
	return fmt.Sprint(v)
}

// vips returns an AgentClusterInstall's VIPs of one kind: the list, or
// the singular field when there is no list.
func vips(aci map[string]any, field string) []string {
	var out []string
	if list, ok := at(aci, "spec", field+"s").([]any); ok {
		for _, v := range list {
			out = append(out, fmt.Sprint(v))
		}
	}
	if s := dig(aci, "spec", field); s != "" && len(out) == 0 {
		out = append(out, s)
	}
	return out
}

// canonicalJSON re-encodes a JSON text, so that layout does not count.
func canonicalJSON(s string) string {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// suppressedOf lists the suppressed objects of a kind.
func suppressedOf(b *render.Bundle, kind string) []string {
	var out []string
	for _, s := range b.Suppressed {
		if strings.HasPrefix(s, kind+" ") {
			out = append(out, s)
		}
	}
	return out
}
