package argocd_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
	"github.com/siteops/siteops/engine/sim"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

var update = flag.Bool("update", false, "rewrite health/testdata from the engine")

// capturedDir holds, per phase, the resources of a single-node site as
// the hub's controllers leave them at that moment.
const capturedDir = "health/testdata"

// phaseScenario drives a single-node site to one moment of its life.
type phaseScenario struct {
	name string
	// edit changes the site's file before it is rendered.
	edit func(string) string
	// reached says the engine is at the moment to capture.
	reached func(engine.SiteStatus) bool
}

func hardware(spec string) func(string) string {
	return func(s string) string {
		return strings.Replace(s, `"cpus=8,memoryMiB=16384,diskGB=120,diskType=ssd,vendor=Lenovo,product=ThinkEdge SE350"`, `"`+spec+`"`, 1)
	}
}

var phaseScenarios = []phaseScenario{
	{name: "pending", reached: func(st engine.SiteStatus) bool { return st.Phase == engine.PhasePending }},
	{name: "provisioning", reached: func(st engine.SiteStatus) bool {
		return st.Phase == engine.PhaseProvisioning && len(st.Hosts) == 1 && st.Hosts[0].State == "known"
	}},
	{name: "insufficient-host", edit: hardware("cpus=6,memoryMiB=16384,diskGB=120"), reached: func(st engine.SiteStatus) bool {
		return len(st.Hosts) == 1 && st.Hosts[0].State == "insufficient"
	}},
	{name: "installing", reached: func(st engine.SiteStatus) bool {
		return st.Phase == engine.PhaseInstalling && st.Cluster.Percent >= 40
	}},
	{name: "installed", reached: func(st engine.SiteStatus) bool { return st.Phase == engine.PhaseInstalled }},
	{name: "failed", edit: hardware("cpus=8,memoryMiB=16384,diskGB=120,failAt=Writing image to disk"), reached: func(st engine.SiteStatus) bool {
		return st.Phase == engine.PhaseFailed
	}},
	{name: "held", edit: func(s string) string {
		return strings.Replace(s, "  clusterType: SNO\n", "  clusterType: SNO\n  holdInstallation: true\n", 1)
	}, reached: func(st engine.SiteStatus) bool {
		return st.Cluster.State == "ready" && strings.Contains(st.Message, "on hold")
	}},
}

// TestCapturedResources drives the embedded engine through each phase and
// checks that health/testdata holds what it reports (go test -update
// rewrites it). The health checks are tested on these files.
func TestCapturedResources(t *testing.T) {
	site, err := os.ReadFile("../sim/cedar-sno.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range phaseScenarios {
		t.Run(sc.name, func(t *testing.T) {
			text := string(site)
			if sc.edit != nil {
				if text = sc.edit(text); text == string(site) {
					t.Fatal("the scenario's edit changed nothing")
				}
			}
			b := renderOne(t, text)
			st := driveTo(t, b, sc.reached)
			got := capture(t, b, st)
			dir := filepath.Join(capturedDir, sc.name)
			if *update {
				os.RemoveAll(dir)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				for name, data := range got {
					if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != len(got) {
				t.Errorf("%s holds %d files, the engine gives %d (go test -update rewrites them)", dir, len(entries), len(got))
			}
			for name, data := range got {
				want, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil || string(want) != string(data) {
					t.Errorf("%s/%s is not what the engine reports now (go test -update rewrites it):\n%s", dir, name, data)
				}
			}
		})
	}
}

func renderOne(t *testing.T, text string) *render.Bundle {
	t.Helper()
	fleet, err := sites.Load(context.Background(), os.DirFS("."), nil, sites.WithDocuments(sites.Document{Name: "cedar-sno.yaml", Data: []byte(text)}))
	if err != nil || fleet.Problems.HasErrors() || len(fleet.Sites) != 1 {
		t.Fatalf("load: %v %v", err, fleet.Problems)
	}
	b, ps := render.New().Render(fleet.Sites[0])
	if ps.HasErrors() || b == nil {
		t.Fatalf("render: %v", ps)
	}
	return b
}

// driveTo applies the bundle to a stepped engine and advances its clock a
// virtual 10 s at a time until reached holds.
func driveTo(t *testing.T, b *render.Bundle, reached func(engine.SiteStatus) bool) engine.SiteStatus {
	t.Helper()
	ctx := context.Background()
	e, err := sim.New(ctx, sim.Options{Stepped: true, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.Apply(ctx, b, "main@sha1:0123456789abcdef0123456789abcdef01234567"); err != nil {
		t.Fatal(err)
	}
	for elapsed := time.Duration(0); elapsed < 6*time.Hour; elapsed += 10 * time.Second {
		if err := e.Advance(ctx, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		st, err := e.Status(ctx, b.Site)
		if err != nil {
			t.Fatal(err)
		}
		if reached(st) {
			return st
		}
	}
	t.Fatal("the engine did not reach the phase within 6 virtual hours")
	return engine.SiteStatus{}
}

// capture builds the objects Argo CD would see: the rendered ones with the
// status fields their controllers write, and the Agent the assisted
// service creates. Each is one file named after its kind.
func capture(t *testing.T, b *render.Bundle, st engine.SiteStatus) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	put := func(obj map[string]any) {
		data, err := yaml.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		out[obj["kind"].(string)+".yaml"] = data
	}
	conds := func(kind, ns, name string) []any {
		for _, r := range st.Resources {
			if r.Kind == kind && r.Namespace == ns && r.Name == name {
				return conditionList(r.Conditions)
			}
		}
		return nil
	}
	for _, o := range b.Objects {
		obj := deepCopy(t, o.Content)
		status := map[string]any{}
		switch o.Kind {
		case render.KindAgentClusterInstall:
			status["conditions"] = conds(o.Kind, o.Namespace, o.Name)
			status["debugInfo"] = map[string]any{"state": st.Cluster.State, "stateInfo": st.Cluster.StateInfo}
			status["progress"] = map[string]any{"totalPercentage": st.Cluster.Percent}
			status["validationsInfo"] = validationsInfo(st.Cluster.Validations)
		case render.KindClusterDeployment:
			status["conditions"] = conds(o.Kind, o.Namespace, o.Name)
			if st.Cluster.Installed {
				obj["spec"].(map[string]any)["installed"] = true
			}
		case render.KindInfraEnv:
			status["conditions"] = conds(o.Kind, o.Namespace, o.Name)
			if r := resource(st, o.Kind, o.Namespace, o.Name); r != nil && r.ISODownloadURL != "" {
				status["isoDownloadURL"] = r.ISODownloadURL
			}
		case render.KindBareMetalHost:
			for _, h := range st.Hosts {
				if h.Name == o.Name && h.ProvisioningState != "" {
					status["provisioning"] = map[string]any{"state": h.ProvisioningState}
					status["operationalStatus"] = "OK"
				}
			}
		case render.KindManagedCluster:
			status["conditions"] = managedClusterConditions(st)
		default:
			continue
		}
		obj["status"] = prune(status)
		put(obj)
	}
	for _, h := range st.Hosts {
		if h.Agent == "" {
			continue
		}
		ns := b.Site
		agent := map[string]any{
			"apiVersion": "agent-install.openshift.io/v1beta1",
			"kind":       "Agent",
			"metadata":   map[string]any{"name": h.Agent, "namespace": ns},
			"spec":       map[string]any{"approved": h.Approved, "hostname": h.Hostname, "role": h.Role},
		}
		status := map[string]any{
			"conditions": conds("Agent", ns, h.Agent),
			"debugInfo":  map[string]any{"state": h.State, "stateInfo": h.StateInfo},
		}
		if h.Stage != "" {
			status["progress"] = map[string]any{"currentStage": h.Stage, "installationPercentage": h.Percent}
		}
		agent["status"] = prune(status)
		put(agent)
	}
	return out
}

// managedClusterConditions are what Open Cluster Management's
// registration controllers write on a ManagedCluster
// (open-cluster-management-io/api cluster/v1/types.go): the hub accepts
// it at once (the rendered hubAcceptsClient), the klusterlet joins and
// reports available once the cluster is installed and imported.
func managedClusterConditions(st engine.SiteStatus) []any {
	at := "2026-01-01T00:00:00Z"
	conds := []any{map[string]any{"type": "HubAcceptedManagedCluster", "status": "True", "reason": "HubClusterAdminAccepted",
		"message": "Accepted by hub cluster admin", "lastTransitionTime": at}}
	if st.Phase == engine.PhaseInstalled {
		conds = append(conds,
			map[string]any{"type": "ManagedClusterJoined", "status": "True", "reason": "ManagedClusterJoined",
				"message": "Managed cluster joined", "lastTransitionTime": at},
			map[string]any{"type": "ManagedClusterConditionAvailable", "status": "True", "reason": "ManagedClusterAvailable",
				"message": "Managed cluster is available", "lastTransitionTime": at})
	}
	return conds
}

// validationsInfo groups the cluster's failing validations by category,
// as the AgentClusterInstall's status.validationsInfo does (the passing
// ones, which the engine does not list, are left out).
func validationsInfo(vs []engine.Validation) map[string]any {
	category := map[string]string{}
	for _, cv := range assisted.ClusterValidations {
		category[cv.ID] = string(cv.Category)
	}
	out := map[string]any{}
	for _, v := range vs {
		c := category[v.ID]
		list, _ := out[c].([]any)
		out[c] = append(list, map[string]any{"id": v.ID, "status": v.Status, "message": v.Message})
	}
	return out
}

func resource(st engine.SiteStatus, kind, ns, name string) *engine.ResourceStatus {
	for i, r := range st.Resources {
		if r.Kind == kind && r.Namespace == ns && r.Name == name {
			return &st.Resources[i]
		}
	}
	return nil
}

func conditionList(cs []engine.Condition) []any {
	var out []any
	for _, c := range cs {
		m := map[string]any{"type": c.Type, "status": c.Status, "lastTransitionTime": c.LastTransitionTime.UTC().Format(time.RFC3339)}
		if c.Reason != "" {
			m["reason"] = c.Reason
		}
		if c.Message != "" {
			m["message"] = c.Message
		}
		out = append(out, m)
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].(map[string]any)["type"].(string) < out[j].(map[string]any)["type"].(string)
	})
	return out
}

// prune drops empty values, as the controllers' omitempty fields do.
func prune(m map[string]any) map[string]any {
	for k, v := range m {
		switch v := v.(type) {
		case nil:
			delete(m, k)
		case []any:
			if len(v) == 0 {
				delete(m, k)
			}
		case string:
			if v == "" {
				delete(m, k)
			}
		case map[string]any:
			if len(prune(v)) == 0 {
				delete(m, k)
			}
		}
	}
	return m
}

func deepCopy(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	data, err := yaml.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := yaml.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
