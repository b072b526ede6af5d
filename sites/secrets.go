package sites

import (
	"encoding/base64"

	yamlv3 "gopkg.in/yaml.v3"
	"sigs.k8s.io/yaml"

	"github.com/siteops/siteops/internal/redact"
)

// notSecret are the keys of a Secret whose values are no credential: a
// BMC Secret's username ("root", "admin") is an everyday word that
// hiding would cut out of every document, and protects nothing.
var notSecret = map[string]bool{"username": true, "user": true}

// registerSecret hands the values of a Secret a kustomize build produced
// (a Secret among the resources beside the sites, or a secretGenerator's)
// to the redactor, so that no output, status file or log line can carry
// them, wherever else in the fleet they are copied. The Secret itself is
// never a site and is dropped.
func registerSecret(data []byte) {
	var s secretData
	if yaml.Unmarshal(data, &s) != nil {
		return
	}
	s.register()
}

// secretData is what a Secret holds.
type secretData struct {
	Data       map[string]string `json:"data" yaml:"data"`
	StringData map[string]string `json:"stringData" yaml:"stringData"`
}

// isSecret reports whether a document of a site file is a Secret (kept
// beside the sites in the same file or directory).
func isSecret(body *yamlv3.Node) bool {
	k, av := mappingValue(body, "kind"), mappingValue(body, "apiVersion")
	return k != nil && k.Value == "Secret" && av != nil && av.Value == "v1"
}

// registerSecretNode is registerSecret for a decoded document.
func registerSecretNode(body *yamlv3.Node) {
	var s secretData
	if body.Decode(&s) == nil {
		s.register()
	}
}

func (s *secretData) register() {
	for k, v := range s.StringData {
		if !notSecret[k] {
			redact.Register(v)
		}
	}
	for k, v := range s.Data {
		if notSecret[k] {
			continue
		}
		redact.Register(v)
		if plain, err := base64.StdEncoding.DecodeString(v); err == nil {
			redact.Register(string(plain))
		}
	}
}
