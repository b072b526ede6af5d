package convert

import (
	"reflect"
	"slices"
	"testing"

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
				want, got := comparableModel(cv.orig.Model()), comparableModel(cv.ci.Model())
				if got.Cluster.CPUArchitecture == sites.DefaultCIArchitecture {
					got.Cluster.CPUArchitecture = ""
				}
				for i := range got.Nodes {
					if got.Nodes[i].CPUArchitecture == sites.DefaultCIArchitecture {
						got.Nodes[i].CPUArchitecture = ""
					}
					if i < len(want.Nodes) && !slices.Contains([]string{sites.RoleMaster, sites.RoleWorker}, want.Nodes[i].Role) {
						if !reported(cv.result.Report, cv.orig.Model().Nodes[i].Path+".role", Changed) {
							t.Errorf("%s: node %d's role %q changes without a note", cv.orig.Name, i, want.Nodes[i].Role)
						}
						want.Nodes[i].Role, got.Nodes[i].Role = "", ""
						want.Cluster.ClusterType, got.Cluster.ClusterType = "", ""
					}
				}
				compareModels(t, cv.orig.Name, want, got)
			}
		})
	}
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
