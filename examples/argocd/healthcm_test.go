package argocd_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// healthScripts maps each health script to the group and kind Argo CD
// runs it for.
var healthScripts = []struct{ file, group, kind string }{
	{"agentclusterinstall.lua", "extensions.hive.openshift.io", "AgentClusterInstall"},
	{"clusterdeployment.lua", "hive.openshift.io", "ClusterDeployment"},
	{"baremetalhost.lua", "metal3.io", "BareMetalHost"},
	{"infraenv.lua", "agent-install.openshift.io", "InfraEnv"},
	{"agent.lua", "agent-install.openshift.io", "Agent"},
	{"managedcluster.lua", "cluster.open-cluster-management.io", "ManagedCluster"},
}

const healthConfigMap = "health/argocd-cm.yaml"

// healthLib holds the helpers the scripts share (condition).
const healthLib = "lib.lua"

// configMapWithHealth is the argocd-cm snippet holding every script under
// resource.customizations.health.<group>_<kind> (github.com/argoproj/argo-cd
// docs/operator-manual/health.md).
func configMapWithHealth(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`# Health checks for the resources siteops renders, for Argo CD's argocd-cm
# ConfigMap: merge these keys into it (kubectl -n argocd patch configmap
# argocd-cm --patch-file examples/argocd/health/argocd-cm.yaml). Generated
# from the .lua files next to this one, lib.lua in front of those that use it
# (go test ./examples/argocd -update);
# docs/argocd.md says what each shows.
apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-cm
  namespace: argocd
  labels:
    app.kubernetes.io/name: argocd-cm
    app.kubernetes.io/part-of: argocd
data:
`)
	lib, err := os.ReadFile(filepath.Join("health", healthLib))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range healthScripts {
		data, err := os.ReadFile(filepath.Join("health", s.file))
		if err != nil {
			t.Fatal(err)
		}
		// Argo CD runs each script alone: the helpers it calls go in
		// front of it.
		if strings.Contains(string(data), "condition(") {
			data = slices.Concat(lib, []byte("\n"), data)
		}
		b.WriteString("  resource.customizations.health." + s.group + "_" + s.kind + ": |\n")
		for _, line := range strings.SplitAfter(strings.TrimRight(string(data), "\n")+"\n", "\n") {
			if line == "" {
				continue
			}
			if line != "\n" {
				b.WriteString("    ")
			}
			b.WriteString(line)
		}
	}
	return b.String()
}

// TestHealthConfigMapHoldsTheScripts keeps argocd-cm.yaml in step with
// the .lua files.
func TestHealthConfigMapHoldsTheScripts(t *testing.T) {
	want := configMapWithHealth(t)
	if *update {
		if err := os.WriteFile(healthConfigMap, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(healthConfigMap)
	if err != nil || string(got) != want {
		t.Errorf("%s does not hold the .lua files as they are (go test -update rewrites it)", healthConfigMap)
	}
}
