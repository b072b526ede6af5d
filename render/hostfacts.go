package render

import (
	metal3 "github.com/metal3-io/baremetal-operator/apis/metal3.io/v1alpha1"
)

// BareMetalHostBMC reads what a check needs of a rendered BareMetalHost:
// the host it is for (the BMAC hostname annotation, else its name) and
// spec.bmc.disableCertificateVerification, with set false when the field
// is absent (the upstream type leaves a false value out). An object
// written from its typed form is read from it, without building its map.
func BareMetalHostBMC(o *Object) (host string, disabled, set bool) {
	host = o.Name
	if t, ok := o.typed.(*metal3.BareMetalHost); ok && o.Content == nil {
		if h := t.GetAnnotations()[AnnotationBMACHostname]; h != "" {
			host = h
		}
		// omitempty: the map has the key only when it is true.
		return host, t.Spec.BMC.DisableCertificateVerification, t.Spec.BMC.DisableCertificateVerification
	}
	content := o.Map()
	if md, ok := content["metadata"].(map[string]any); ok {
		if ann, ok := md["annotations"].(map[string]any); ok {
			if h, ok := ann[AnnotationBMACHostname].(string); ok && h != "" {
				host = h
			}
		}
	}
	spec, _ := content["spec"].(map[string]any)
	bmc, _ := spec["bmc"].(map[string]any)
	disabled, set = bmc["disableCertificateVerification"].(bool)
	return host, disabled, set
}
