package convert

import (
	"reflect"
	"slices"
	"testing"

	"github.com/siteops/siteops/internal/yamlenc"
	"github.com/siteops/siteops/sites"
)

// TestConversionKeepsTheModel: a converted ClusterInstance normalizes to
// the same site model as the SiteConfig it came from, so every fact the
// policies, the fleet index and the change rules read survives the
// conversion. The known differences are the ones the conversion reports:
// a role other than master or worker becomes worker (a changed note), and
// ClusterInstance's CRD defaults the CPU architecture the SiteConfig
// leaves to assisted-service.
func TestConversionKeepsTheModel(t *testing.T) {
	for _, c := range corpora[:2] {
		t.Run(c.name, func(t *testing.T) {
			_, all := convertCorpus(t, c)
			for _, cv := range all {
				checkModelKept(t, cv.orig, cv.ci, cv.result.Report)
			}
		})
	}
}

// TestConversionKeepsTheModelRoles: roles other than master and worker,
// which the corpora do not have, change only where the report says so.
func TestConversionKeepsTheModelRoles(t *testing.T) {
	orig := loadOne(t, map[string]string{"site.yaml": siteConfig{
		cluster: "      apiVIPs: [192.0.2.100]\n      ingressVIPs: [192.0.2.101]\n",
		nodes: node("n0", "02:00:00:00:00:01", "", "") + node("n1", "02:00:00:00:00:02", "master", "") +
			node("n2", "02:00:00:00:00:03", "master", "") + node("n3", "02:00:00:00:00:04", "storage", ""),
	}.String()})
	res, err := Convert(orig)
	if err != nil {
		t.Fatal(err)
	}
	data, err := yamlenc.Marshal(res.ClusterInstance)
	if err != nil {
		t.Fatal(err)
	}
	back := loadSites(t, map[string]string{"site.yaml": string(data)})
	if len(back) != 1 {
		t.Fatalf("%d sites loaded back, want 1", len(back))
	}
	if got := back[0].Model().Nodes[3].Role; got != sites.RoleWorker {
		t.Errorf("role storage converts to %q, want worker", got)
	}
	checkModelKept(t, orig, back[0], res.Report)
}

// checkModelKept compares the models of a SiteConfig cluster and its
// conversion: a role other than master or worker may differ when the
// report has a changed note for it, and the CPU architecture the CRD
// defaults may be set.
func checkModelKept(t *testing.T, orig, ci *sites.Site, report []Note) {
	t.Helper()
	want, got := comparableModel(orig.Model()), comparableModel(ci.Model())
	if got.Cluster.CPUArchitecture == sites.DefaultCIArchitecture {
		got.Cluster.CPUArchitecture = ""
	}
	for i := range got.Nodes {
		if got.Nodes[i].CPUArchitecture == sites.DefaultCIArchitecture {
			got.Nodes[i].CPUArchitecture = ""
		}
		if i < len(want.Nodes) && !slices.Contains([]string{sites.RoleMaster, sites.RoleWorker}, want.Nodes[i].Role) {
			if !reported(report, orig.Model().Nodes[i].Path+".role", Changed) {
				t.Errorf("%s: node %d's role %q changes without a note", orig.Name, i, want.Nodes[i].Role)
			}
			want.Nodes[i].Role, got.Nodes[i].Role = "", ""
			want.Cluster.ClusterType, got.Cluster.ClusterType = "", ""
		}
	}
	compareModels(t, orig.Name, want, got)
}

// comparableModel is a copy of m without the document paths, which
// differ between the formats by design.
func comparableModel(m *sites.Model) *sites.Model {
	out := *m
	out.Path, out.Paths = "", sites.ClusterPaths{}
	out.Nodes = slices.Clone(m.Nodes)
	for i := range out.Nodes {
		out.Nodes[i].Path = ""
	}
	return &out
}

// compareModels reports each cluster and node field that differs.
func compareModels(t *testing.T, site string, want, got *sites.Model) {
	t.Helper()
	wc, gc := reflect.ValueOf(want.Cluster), reflect.ValueOf(got.Cluster)
	for i := range wc.NumField() {
		if !equalValue(wc.Field(i), gc.Field(i)) {
			t.Errorf("%s: cluster %s is %v in the SiteConfig, %v in the ClusterInstance", site, wc.Type().Field(i).Name, wc.Field(i), gc.Field(i))
		}
	}
	if len(want.Nodes) != len(got.Nodes) {
		t.Fatalf("%s: %d nodes, want %d", site, len(got.Nodes), len(want.Nodes))
	}
	for j := range want.Nodes {
		wn, gn := reflect.ValueOf(want.Nodes[j]), reflect.ValueOf(got.Nodes[j])
		for i := range wn.NumField() {
			if !equalValue(wn.Field(i), gn.Field(i)) {
				t.Errorf("%s: node %d %s is %v in the SiteConfig, %v in the ClusterInstance", site, j, wn.Type().Field(i).Name, wn.Field(i), gn.Field(i))
			}
		}
	}
}

// equalValue compares two model values, an empty list or map the same as
// none (the formats leave out an empty value differently).
func equalValue(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Slice, reflect.Map:
		if a.Len() == 0 && b.Len() == 0 {
			return true
		}
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

// reported says whether the report has a note of this kind at path.
func reported(report []Note, path string, kind NoteKind) bool {
	return slices.ContainsFunc(report, func(n Note) bool { return n.Field == path && n.Kind == kind })
}
