package examplecheck

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/argoproj/argo-cd/v3/cmpserver/plugin"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

const examples = "../../../examples/argocd"

// TestPluginConfig loads plugin.yaml with argocd-cmp-server's loader,
// which checks it.
func TestPluginConfig(t *testing.T) {
	cfg, err := plugin.ReadPluginConfig(examples)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Metadata.Name != "siteops" || cfg.Spec.Version != "v1" || !cfg.Spec.Discover.IsDefined() || len(cfg.Spec.Parameters.Static) != 2 {
		t.Errorf("plugin %+v", cfg)
	}
}

// TestManifestsDecodeStrictly decodes each example into Argo CD's (or
// Kubernetes') type, refusing unknown fields.
func TestManifestsDecodeStrictly(t *testing.T) {
	for file, into := range map[string]any{
		"application.yaml":       &v1alpha1.Application{},
		"applicationset.yaml":    &v1alpha1.ApplicationSet{},
		"repo-server-patch.yaml": &appsv1.Deployment{},
	} {
		data, err := os.ReadFile(filepath.Join(examples, file))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.UnmarshalStrict(data, into); err != nil {
			t.Errorf("%s: %v", file, err)
		}
	}
	var app v1alpha1.Application
	data, _ := os.ReadFile(filepath.Join(examples, "application.yaml"))
	if err := yaml.Unmarshal(data, &app); err != nil {
		t.Fatal(err)
	}
	if p := app.Spec.Source.Plugin; p == nil || p.Name != "siteops-v1" || len(app.Spec.IgnoreDifferences) != 2 {
		t.Errorf("application source %+v, ignoreDifferences %d", app.Spec.Source, len(app.Spec.IgnoreDifferences))
	}
}
