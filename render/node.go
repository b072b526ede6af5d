package render

import (
	"bytes"
	"encoding/json"
	"fmt"

	metal3 "github.com/metal3-io/baremetal-operator/apis/metal3.io/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	aiv1beta1 "github.com/siteops/siteops/apis/agentinstall/v1beta1"
	"github.com/siteops/siteops/internal/redact"
	"github.com/siteops/siteops/internal/tomap"
	"github.com/siteops/siteops/sites"
)

// Builders of the per-node resources (clusterCRsV1.go in
// openshift-kni/cnf-features-deploy ztp/siteconfig-generator/siteConfig).

func (r *siteRender) nmStateConfig(i int) (any, error) {
	c, n := r.cluster, &r.cluster.Nodes[i]
	md := r.meta(KindNMStateConfig, n.HostName, c.ClusterName)
	md.Labels = map[string]string{LabelNMState: c.ClusterName}
	nm := &aiv1beta1.NMStateConfig{
		TypeMeta:   typeMeta(aiv1beta1.SchemeGroupVersion.String(), KindNMStateConfig),
		ObjectMeta: md,
	}
	// spec.config, the free-form nmstate document, is added to the
	// converted content by the caller: going through the typed
	// RawExtension would mean a JSON round trip per host.
	for _, itf := range n.NodeNetwork.Interfaces {
		nm.Spec.Interfaces = append(nm.Spec.Interfaces, &aiv1beta1.Interface{Name: itf.Name, MacAddress: itf.MacAddress})
	}
	return nm, nil
}

func (r *siteRender) bareMetalHost(i int) (any, error) {
	c, n := r.cluster, &r.cluster.Nodes[i]
	md := r.meta(KindBareMetalHost, n.HostName, c.ClusterName)
	md.Labels = map[string]string{LabelInfraEnv: c.ClusterName}
	a := md.Annotations
	if n.IronicInspect == InspectDisabled {
		a[AnnotationInspect] = InspectDisabled
	}
	for k, v := range n.NodeLabels {
		a[AnnotationBMACNodeLabelPrefix+k] = v
	}
	setIf(a, AnnotationBMACHostname, n.HostName)
	setIf(a, AnnotationBMACInstallerArgs, n.InstallerArgs)
	setIf(a, AnnotationBMACIgnitionOverride, n.IgnitionConfigOverride)
	setIf(a, AnnotationBMACRole, n.Role)
	bmh := &metal3.BareMetalHost{
		TypeMeta:   typeMeta(metal3.GroupVersion.String(), KindBareMetalHost),
		ObjectMeta: md,
		Spec: metal3.BareMetalHostSpec{
			BootMode: metal3.BootMode(n.BootMode),
			BMC: metal3.BMCDetails{
				Address:                        redact.URL(n.BmcAddress),
				CredentialsName:                n.BmcCredentialsName.Name,
				DisableCertificateVerification: true,
			},
			BootMACAddress:        n.BootMACAddress,
			AutomatedCleaningMode: metal3.AutomatedCleaningMode(n.AutomatedCleaningMode),
			Online:                true,
		},
	}
	field := fmt.Sprintf("nodes[%d]", i)
	if len(n.RootDeviceHints) > 0 {
		bmh.Spec.RootDeviceHints = &metal3.RootDeviceHints{}
		if err := strictConvert(n.RootDeviceHints, bmh.Spec.RootDeviceHints); err != nil {
			return nil, r.fieldError(field+".rootDeviceHints", "%v", err)
		}
	}
	if len(n.UserData) > 0 {
		bmh.Spec.UserData = &corev1.SecretReference{}
		if err := strictConvert(n.UserData, bmh.Spec.UserData); err != nil {
			return nil, r.fieldError(field+".userData", "%v (userData names a Secret: name and namespace)", err)
		}
	}
	return bmh, nil
}

func setIf(m map[string]string, k, v string) {
	if v != "" {
		m[k] = v
	}
}

// strictConvert copies free-form input into a typed field, refusing keys
// the type does not have: the hub would drop them without a word.
func strictConvert(in map[string]any, out any) error {
	raw, err := json.Marshal(in)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("not accepted by the BareMetalHost schema: %v", err)
	}
	return nil
}

// biosPath finds a node's BIOS profile, node, then cluster, then site, and
// the document path of the field that names it.
func (r *siteRender) biosPath(i int) (p, field string) {
	if p := r.cluster.Nodes[i].BiosConfigRef.FilePath; p != "" {
		return p, r.site.FieldPath(fmt.Sprintf("nodes[%d].biosConfigRef.filePath", i))
	}
	if p := r.cluster.BiosConfigRef.FilePath; p != "" {
		return p, r.site.FieldPath("biosConfigRef.filePath")
	}
	return r.site.Spec().BiosConfigRef.FilePath, "spec.biosConfigRef.filePath"
}

// tomapSettings converts BIOS settings to content.
func tomapSettings(s metal3.DesiredSettingsMap) (any, error) { return tomap.Convert(s) }

func (r *siteRender) hostFirmwareSettings(i int) (*metal3.HostFirmwareSettings, error) {
	c, n := r.cluster, &r.cluster.Nodes[i]
	p, field := r.biosPath(i)
	f := r.site.Files.Files[p]
	if f == nil {
		return nil, r.site.Problem(field, "BIOS profile %s was not loaded", p)
	}
	settings, err := biosSettings(f)
	if err != nil {
		return nil, r.site.Problem(field, "%v", err)
	}
	return &metal3.HostFirmwareSettings{
		TypeMeta:   typeMeta(metal3.GroupVersion.String(), KindHostFirmwareSettings),
		ObjectMeta: r.meta(KindHostFirmwareSettings, n.HostName, c.ClusterName),
		Spec:       metal3.HostFirmwareSettingsSpec{Settings: settings},
	}, nil
}

// biosSettings reads a flat YAML map of BIOS settings, values as written (the
// generator's siteConfigBuilder.go).
func biosSettings(f *sites.File) (metal3.DesiredSettingsMap, error) {
	m, err := sites.DecodeFlatMap(f.Path, f.Data)
	if err != nil {
		return nil, err
	}
	out := make(metal3.DesiredSettingsMap, len(m))
	for k, v := range m {
		out[k] = intstr.FromString(v)
	}
	return out, nil
}
