package sites

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// What becomes of every field of the input types in the model. A field
// added to a format type fails TestModelCoversEveryField until it is in
// one of the two tables: mapped (and the model, the input document and
// docs/policy.md carry it) or left out with the reason.

// modelFields maps an input field ("Type.Field") to the model fields it
// becomes ("Model.X", "ClusterModel.X", "NodeModel.X"). The test sets the
// input field alone and checks that each of these changes.
var modelFields = map[string][]string{
	"Metadata.Annotations": {"Model.Annotations"},

	"Spec.PullSecretRef":          {"ClusterModel.PullSecret"},
	"Spec.ClusterImageSetNameRef": {"ClusterModel.ImageSet"}, // when the cluster sets none
	"Spec.SshPublicKey":           {"ClusterModel.SSHKey"},
	"Spec.BaseDomain":             {"ClusterModel.BaseDomain"},

	"Clusters.ApiVIP":                 {"ClusterModel.APIVIPs"}, // when apiVIPs is empty
	"Clusters.IngressVIP":             {"ClusterModel.IngressVIPs"},
	"Clusters.ApiVIPs":                {"ClusterModel.APIVIPs"},
	"Clusters.IngressVIPs":            {"ClusterModel.IngressVIPs"},
	"Clusters.ClusterName":            {"ClusterModel.Name"},
	"Clusters.HoldInstallation":       {"ClusterModel.HoldInstallation"},
	"Clusters.AdditionalNTPSources":   {"ClusterModel.AdditionalNTPSources"},
	"Clusters.Nodes":                  {"Model.Nodes"},
	"Clusters.MachineNetwork":         {"ClusterModel.MachineNetworks"},
	"Clusters.ServiceNetwork":         {"ClusterModel.ServiceNetworks"},
	"Clusters.ClusterNetwork":         {"ClusterModel.ClusterNetworks"},
	"Clusters.ClusterLabels":          {"ClusterModel.Labels"},
	"Clusters.NetworkType":            {"ClusterModel.NetworkType"},
	"Clusters.InstallConfigOverrides": {"ClusterModel.InstallConfigOverrides"},
	"Clusters.IgnitionConfigOverride": {"ClusterModel.IgnitionConfigOverride"},
	"Clusters.ProxySettings":          {"ClusterModel.Proxy"},
	"Clusters.ClusterImageSetNameRef": {"ClusterModel.ImageSet"},

	"Nodes.BmcAddress":             {"NodeModel.BmcAddress"},
	"Nodes.BootMACAddress":         {"NodeModel.BootMACAddress"},
	"Nodes.RootDeviceHints":        {"NodeModel.RootDeviceHints"},
	"Nodes.NodeNetwork":            {"NodeModel.Interfaces", "NodeModel.NMState"},
	"Nodes.NodeLabels":             {"NodeModel.Labels"},
	"Nodes.HostName":               {"NodeModel.HostName"},
	"Nodes.BmcCredentialsName":     {"NodeModel.BmcCredentialsName"},
	"Nodes.BootMode":               {"NodeModel.BootMode"},
	"Nodes.InstallerArgs":          {"NodeModel.InstallerArgs"},
	"Nodes.IgnitionConfigOverride": {"NodeModel.IgnitionConfigOverride"},
	"Nodes.Role":                   {"NodeModel.Role", "ClusterModel.ClusterType"},

	"ClusterInstanceSpec.ClusterName":            {"ClusterModel.Name"},
	"ClusterInstanceSpec.PullSecretRef":          {"ClusterModel.PullSecret"},
	"ClusterInstanceSpec.ClusterImageSetNameRef": {"ClusterModel.ImageSet"},
	"ClusterInstanceSpec.BaseDomain":             {"ClusterModel.BaseDomain"},
	"ClusterInstanceSpec.SSHPublicKey":           {"ClusterModel.SSHKey"},
	"ClusterInstanceSpec.ApiVIPs":                {"ClusterModel.APIVIPs"},
	"ClusterInstanceSpec.IngressVIPs":            {"ClusterModel.IngressVIPs"},
	"ClusterInstanceSpec.HoldInstallation":       {"ClusterModel.HoldInstallation"},
	"ClusterInstanceSpec.AdditionalNTPSources":   {"ClusterModel.AdditionalNTPSources"},
	"ClusterInstanceSpec.MachineNetwork":         {"ClusterModel.MachineNetworks"},
	"ClusterInstanceSpec.ClusterNetwork":         {"ClusterModel.ClusterNetworks"},
	"ClusterInstanceSpec.ServiceNetwork":         {"ClusterModel.ServiceNetworks"},
	"ClusterInstanceSpec.NetworkType":            {"ClusterModel.NetworkType"},
	"ClusterInstanceSpec.PlatformType":           {"ClusterModel.PlatformType"},
	"ClusterInstanceSpec.ExtraLabels":            {"ClusterModel.Labels"}, // the ManagedCluster entry
	"ClusterInstanceSpec.InstallConfigOverrides": {"ClusterModel.InstallConfigOverrides"},
	"ClusterInstanceSpec.IgnitionConfigOverride": {"ClusterModel.IgnitionConfigOverride"},
	"ClusterInstanceSpec.Proxy":                  {"ClusterModel.Proxy"},
	"ClusterInstanceSpec.CPUArchitecture":        {"ClusterModel.CPUArchitecture"},
	"ClusterInstanceSpec.ClusterType":            {"ClusterModel.ClusterType"},
	"ClusterInstanceSpec.Nodes":                  {"Model.Nodes"},

	"NodeSpec.HostName":               {"NodeModel.HostName"},
	"NodeSpec.BmcAddress":             {"NodeModel.BmcAddress"},
	"NodeSpec.BmcCredentialsName":     {"NodeModel.BmcCredentialsName"},
	"NodeSpec.BootMACAddress":         {"NodeModel.BootMACAddress"},
	"NodeSpec.Role":                   {"NodeModel.Role"},
	"NodeSpec.BootMode":               {"NodeModel.BootMode"},
	"NodeSpec.RootDeviceHints":        {"NodeModel.RootDeviceHints"},
	"NodeSpec.NodeNetwork":            {"NodeModel.Interfaces", "NodeModel.NMState"},
	"NodeSpec.NodeLabels":             {"NodeModel.Labels"},
	"NodeSpec.CPUArchitecture":        {"NodeModel.CPUArchitecture"},
	"NodeSpec.InstallerArgs":          {"NodeModel.InstallerArgs"},
	"NodeSpec.IgnitionConfigOverride": {"NodeModel.IgnitionConfigOverride"},
}

// Reasons a field is not in the model.
const (
	onlyRenderer   = "only the renderer reads it: it shapes the rendered objects, not a fact rules compare"
	templateData   = "template data for the extra-manifest templates only"
	derived        = "derived at load time for the renderer; the model derives the cluster type from the nodes itself"
	oneSite        = "each entry is a site of its own, with its own model"
	siteIdentity   = "names the document; Site.Name and Site.Namespace carry the site's identity"
	neverRead      = "accepted and never read, by the upstream generator or by siteops"
	loadChecks     = "checked at load time (it must name the default templates); nothing downstream reads it"
	refusedAtLoad  = "refused at load time: a reinstall is never valid when a cluster is created"
	extraManifests = "extra manifests: only the renderer reads it"
	nodeExtras     = "per-node object metadata: only the renderer reads it"
)

// notInModel lists the input fields the model leaves out, with why.
var notInModel = map[string]string{
	"Metadata.Name":      siteIdentity,
	"Metadata.Namespace": siteIdentity,
	"Metadata.Labels":    neverRead,

	"Spec.SshPrivateKeySecretRef": neverRead,
	"Spec.Clusters":               oneSite,
	"Spec.CrTemplates":            onlyRenderer,
	"Spec.CrAnnotations":          onlyRenderer,
	"Spec.BiosConfigRef":          onlyRenderer + " (HostFirmwareSettings)",

	"Clusters.DiskEncryption":             templateData,
	"Clusters.ExtraManifestPath":          extraManifests,
	"Clusters.BiosConfigRef":              onlyRenderer + " (HostFirmwareSettings)",
	"Clusters.ExtraManifests":             extraManifests,
	"Clusters.CPUPartitioning":            onlyRenderer + " (the install-config overrides)",
	"Clusters.SiteConfigMap":              onlyRenderer + " (the v2 site ConfigMap)",
	"Clusters.CrTemplates":                onlyRenderer,
	"Clusters.CrAnnotations":              onlyRenderer,
	"Clusters.CrSuppression":              onlyRenderer,
	"Clusters.MergeDefaultMachineConfigs": extraManifests,
	"Clusters.NumMasters":                 derived,
	"Clusters.NumWorkers":                 derived,
	"Clusters.ClusterType":                derived,
	"Clusters.ExtraManifestOnly":          derived,
	"Clusters.ManifestsConfigMapRefs":     derived,

	"Nodes.AutomatedCleaningMode": onlyRenderer + " (BareMetalHost)",
	"Nodes.Cpuset":                templateData,
	"Nodes.UserData":              onlyRenderer + " (BareMetalHost)",
	"Nodes.CrTemplates":           onlyRenderer,
	"Nodes.CrAnnotations":         onlyRenderer,
	"Nodes.CrSuppression":         onlyRenderer,
	"Nodes.BiosConfigRef":         onlyRenderer + " (HostFirmwareSettings)",
	"Nodes.DiskPartition":         templateData,
	"Nodes.IronicInspect":         onlyRenderer + " (BareMetalHost)",

	"ClusterInstanceSpec.ExtraAnnotations":    onlyRenderer,
	"ClusterInstanceSpec.DiskEncryption":      neverRead + " (the default templates do not read it)",
	"ClusterInstanceSpec.ExtraManifestsRefs":  extraManifests,
	"ClusterInstanceSpec.SuppressedManifests": onlyRenderer,
	"ClusterInstanceSpec.PruneManifests":      onlyRenderer,
	"ClusterInstanceSpec.CPUPartitioning":     onlyRenderer + " (the install-config overrides)",
	"ClusterInstanceSpec.TemplateRefs":        loadChecks,
	"ClusterInstanceSpec.CaBundleRef":         neverRead + " (the default templates do not read it)",
	"ClusterInstanceSpec.Reinstall":           refusedAtLoad,

	"NodeSpec.TemplateRefs":          loadChecks,
	"NodeSpec.AutomatedCleaningMode": onlyRenderer + " (BareMetalHost)",
	"NodeSpec.HostRef":               onlyRenderer + " (BareMetalHost)",
	"NodeSpec.IronicInspect":         onlyRenderer + " (BareMetalHost)",
	"NodeSpec.ExtraAnnotations":      nodeExtras,
	"NodeSpec.ExtraLabels":           nodeExtras,
	"NodeSpec.SuppressedManifests":   nodeExtras,
	"NodeSpec.PruneManifests":        nodeExtras,
}

// samples are the values set for fields that the sample filler would not
// reach the model through.
var samples = map[string]any{
	"ClusterInstanceSpec.ExtraLabels": map[string]map[string]string{"ManagedCluster": {"sample": "sample"}},
}

// inputType is a type of one of the formats, with a site built around a
// value of it.
type inputType struct {
	typ reflect.Type
	// site builds a site; set, when not nil, changes the value of typ
	// the site holds (a pointer to it).
	site func(set func(reflect.Value)) *Site
}

func siteConfigSite(set func(sc *SiteConfig)) *Site {
	sc := &SiteConfig{Spec: Spec{Clusters: []Clusters{{Nodes: []Nodes{{}}}}}}
	if set != nil {
		set(sc)
	}
	return &Site{Config: sc, Cluster: &sc.Spec.Clusters[0]}
}

func clusterInstanceSite(set func(ci *ClusterInstance)) *Site {
	ci := &ClusterInstance{Spec: ClusterInstanceSpec{Nodes: []NodeSpec{{}}}}
	if set != nil {
		set(ci)
	}
	return &Site{Instance: ci}
}

var inputTypes = []inputType{
	{reflect.TypeFor[Metadata](), func(set func(reflect.Value)) *Site {
		return siteConfigSite(func(sc *SiteConfig) { apply(set, &sc.Metadata) })
	}},
	{reflect.TypeFor[Spec](), func(set func(reflect.Value)) *Site {
		return siteConfigSite(func(sc *SiteConfig) { apply(set, &sc.Spec) })
	}},
	{reflect.TypeFor[Clusters](), func(set func(reflect.Value)) *Site {
		return siteConfigSite(func(sc *SiteConfig) { apply(set, &sc.Spec.Clusters[0]) })
	}},
	{reflect.TypeFor[Nodes](), func(set func(reflect.Value)) *Site {
		return siteConfigSite(func(sc *SiteConfig) { apply(set, &sc.Spec.Clusters[0].Nodes[0]) })
	}},
	{reflect.TypeFor[ClusterInstanceSpec](), func(set func(reflect.Value)) *Site {
		return clusterInstanceSite(func(ci *ClusterInstance) { apply(set, &ci.Spec) })
	}},
	{reflect.TypeFor[NodeSpec](), func(set func(reflect.Value)) *Site {
		return clusterInstanceSite(func(ci *ClusterInstance) { apply(set, &ci.Spec.Nodes[0]) })
	}},
}

func apply(set func(reflect.Value), ptr any) {
	if set != nil {
		set(reflect.ValueOf(ptr))
	}
}

// TestModelCoversEveryField: every field of the format types is mapped
// into the model or left out on purpose, a mapped field reaches the
// model fields its row names, and every model field comes from some
// input field.
func TestModelCoversEveryField(t *testing.T) {
	seen := map[string]bool{}
	reached := map[string]bool{}
	for _, it := range inputTypes {
		base := it.site(nil).Model()
		for f := range it.typ.Fields() {
			if !f.IsExported() {
				continue
			}
			key := it.typ.Name() + "." + f.Name
			seen[key] = true
			targets, mapped := modelFields[key]
			reason, left := notInModel[key]
			switch {
			case mapped && left:
				t.Errorf("%s is both mapped into the model and left out (%s): keep one row", key, reason)
				continue
			case left && reason == "":
				t.Errorf("%s is left out of the model without a reason", key)
				continue
			case left:
				continue
			case !mapped:
				t.Errorf("%s is neither in the model nor listed as left out: add it to sites.Model (and the policy input and docs/policy.md), or to notInModel with the reason", key)
				continue
			}
			got := it.site(func(v reflect.Value) {
				field := v.Elem().FieldByName(f.Name)
				if s, ok := samples[key]; ok {
					field.Set(reflect.ValueOf(s))
					return
				}
				fill(field)
			}).Model()
			for _, target := range targets {
				reached[target] = true
				was, now, ok := modelField(base, got, target)
				if !ok {
					t.Errorf("%s maps to %s, which the model does not have", key, target)
					continue
				}
				if reflect.DeepEqual(was.Interface(), now.Interface()) {
					t.Errorf("setting %s leaves %s as it was (%v): the model does not read it", key, target, now)
				}
			}
		}
	}
	for key := range modelFields {
		if !seen[key] {
			t.Errorf("modelFields maps %s, which no input type has", key)
		}
	}
	for key := range notInModel {
		if !seen[key] {
			t.Errorf("notInModel lists %s, which no input type has", key)
		}
	}
	// Every model field comes from the input; Path and Paths are the
	// document's own.
	for _, typ := range []reflect.Type{reflect.TypeFor[Model](), reflect.TypeFor[ClusterModel](), reflect.TypeFor[NodeModel]()} {
		for f := range typ.Fields() {
			name := typ.Name() + "." + f.Name
			if f.Name == "Path" || f.Name == "Paths" || f.Name == "Cluster" || reached[name] {
				continue
			}
			t.Errorf("%s comes from no input field in modelFields", name)
		}
	}
}

// modelField reads a field ("ClusterModel.X") of two models.
func modelField(a, b *Model, target string) (was, now reflect.Value, ok bool) {
	typ, name, _ := strings.Cut(target, ".")
	at := func(m *Model) reflect.Value {
		switch typ {
		case "Model":
			return reflect.ValueOf(m).Elem().FieldByName(name)
		case "ClusterModel":
			return reflect.ValueOf(&m.Cluster).Elem().FieldByName(name)
		case "NodeModel":
			if len(m.Nodes) == 0 {
				return reflect.Value{}
			}
			return reflect.ValueOf(&m.Nodes[0]).Elem().FieldByName(name)
		}
		return reflect.Value{}
	}
	was, now = at(a), at(b)
	return was, now, was.IsValid() && now.IsValid()
}

// fill sets v to a value that is not its zero value, every field of a
// struct and one entry of a list or map.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("sample")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Interface:
		v.Set(reflect.ValueOf("sample"))
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k)
		fill(e)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	}
}

// TestModelPaths: every cluster field has a document path, set for a
// cluster that sets every field, one per entry for a list; node field
// keys are keys of both node types.
func TestModelPaths(t *testing.T) {
	cluster, paths := reflect.TypeFor[ClusterModel](), reflect.TypeFor[ClusterPaths]()
	for f := range cluster.Fields() {
		if _, ok := paths.FieldByName(f.Name); !ok {
			t.Errorf("ClusterPaths has no %s: every ClusterModel field needs its document path", f.Name)
		}
	}
	full := map[string]*Site{
		"SiteConfig": siteConfigSite(func(sc *SiteConfig) {
			fill(reflect.ValueOf(&sc.Spec.Clusters[0]).Elem())
			sc.Spec.Clusters[0].ApiVIPs = []string{"192.0.2.1", "2001:db8::1"}
		}),
		"ClusterInstance": clusterInstanceSite(func(ci *ClusterInstance) {
			fill(reflect.ValueOf(&ci.Spec).Elem())
			ci.Spec.ApiVIPs = []string{"192.0.2.1", "2001:db8::1"}
		}),
	}
	for format, s := range full {
		m := s.Model()
		mv, pv := reflect.ValueOf(m.Cluster), reflect.ValueOf(m.Paths)
		for f := range paths.Fields() {
			p := pv.FieldByName(f.Name)
			switch p.Kind() {
			case reflect.String:
				if !strings.HasPrefix(p.String(), "spec") && !strings.HasPrefix(p.String(), "metadata") {
					t.Errorf("%s: the path of %s is %q, not a document path", format, f.Name, p.String())
				}
			case reflect.Slice:
				if want := mv.FieldByName(f.Name).Len(); p.Len() != want {
					t.Errorf("%s: %d paths for %s, want one per entry (%d)", format, p.Len(), f.Name, want)
				}
			}
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[Nodes](), reflect.TypeFor[NodeSpec]()} {
		var keys []string
		for f := range typ.Fields() {
			keys = append(keys, strings.Split(f.Tag.Get("yaml"), ",")[0])
		}
		for _, k := range NodeFieldKeys {
			if first, _, _ := strings.Cut(k, "."); !slices.Contains(keys, first) {
				t.Errorf("NodeFieldKeys has %s, which %s has not", k, typ.Name())
			}
		}
	}
}
