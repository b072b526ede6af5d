package sites

import (
	"encoding/base64"

	"sigs.k8s.io/yaml"

	"github.com/siteops/siteops/internal/redact"
)

// registerSecret hands the values of a Secret a kustomize build produced
// (a Secret among the resources beside the sites, or a secretGenerator's)
// to the redactor, so that no output, status file or log line can carry
// them, wherever else in the fleet they are copied. The Secret itself is
// never a site and is dropped.
func registerSecret(data []byte) {
	var s struct {
		Data       map[string]string `json:"data"`
		StringData map[string]string `json:"stringData"`
	}
	if yaml.Unmarshal(data, &s) != nil {
		return
	}
	for _, v := range s.StringData {
		redact.Register(v)
	}
	for _, v := range s.Data {
		redact.Register(v)
		if plain, err := base64.StdEncoding.DecodeString(v); err == nil {
			redact.Register(string(plain))
		}
	}
}
