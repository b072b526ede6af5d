package status

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/internal/tomap"
	"github.com/siteops/siteops/internal/tomap/tomaptest"
	"github.com/siteops/siteops/internal/yamlenc"
	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/sites"
)

// A document is written field by field; it must give the bytes of its
// JSON form written as YAML, the form other tools (and Decode) read.
func TestEncodeMatchesItsJSONForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	docs := []*Document{sampleDocument(0)}
	for range 500 {
		d := &Document{}
		tomaptest.Fill(rng, reflect.ValueOf(d).Elem())
		docs = append(docs, d)
	}
	for i, d := range docs {
		got, err := Encode(d)
		if err != nil {
			t.Fatal(err)
		}
		m, err := tomap.Convert(d)
		if err != nil {
			t.Fatal(err)
		}
		want, err := yamlenc.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("document %d:\ngot\n%s\nwant\n%s", i, got, want)
		}
		back, err := Decode(got)
		if err != nil {
			t.Fatalf("document %d does not read back: %v", i, err)
		}
		again, err := Encode(back)
		if err != nil || string(again) != string(got) {
			t.Fatalf("document %d read back writes differently (%v):\n%s", i, err, again)
		}
	}
}

// sampleDocument is the status of a single-node site as the first pass
// writes it: every object applied, the host installing, a full event log
// and a finding.
func sampleDocument(n int) *Document {
	at := time.Date(2026, 11, 28, 7, 0, n%60, 0, time.UTC)
	site := fmt.Sprintf("sno-%06d", n)
	d := &Document{SiteStatus: engine.SiteStatus{
		Site: site, Phase: engine.PhaseInstalling, Message: "The installation is in progress: 2 of 9 stages done.",
		Revision: "4217ea2c5f4f4e3b4a1c2d9e8f7a6b5c4d3e2f1a", LastProgressAt: &at,
		Cluster: engine.ClusterStatus{State: "installing", StateInfo: "Installation in progress", Percent: 40, InstallStartedAt: &at,
			Validations: []engine.Validation{{ID: "ntp-server-configured", Status: "pending", Message: "Host couldn't synchronize with any NTP server"}}},
		Hosts: []engine.HostStatus{{Name: site + "-0", Agent: "6e1c6b4e-5a4e-4f1a-9a7f-2f5b6c7d8e9f", Hostname: site, Role: "master",
			ProvisioningState: "provisioned", State: "installing-in-progress", StateInfo: "Installing", Stage: "Writing image to disk", Percent: 40, Approved: true}},
	}}
	for _, kind := range []string{"Namespace", "ClusterDeployment", "AgentClusterInstall", "InfraEnv", "NMStateConfig", "BareMetalHost", "ManagedCluster", "KlusterletAddonConfig", "ConfigMap"} {
		r := engine.ResourceStatus{Kind: kind, Namespace: site, Name: site}
		for _, c := range []string{"RequirementsMet", "Validated", "Completed"} {
			r.Conditions = append(r.Conditions, engine.Condition{Type: c, Status: "False", Reason: "ClusterInstallationInProgress", Message: "The installation is in progress: Installation in progress", LastTransitionTime: at})
		}
		d.Resources = append(d.Resources, r)
	}
	for i := range engine.MaxEvents {
		d.Events = append(d.Events, engine.Event{Time: at.Add(time.Duration(i) * time.Second), Object: "Agent/" + site, Reason: "StatusChanged", Message: "Host " + site + ": updated status from known to installing"})
	}
	d.Findings = []report.Finding{{Rule: "ztp.bmc.certificate-verification-disabled", Severity: report.Warn, Site: site, Field: "spec.nodes[0].bmcAddress",
		Message: "node " + site + " disables BMC certificate verification", Pos: sites.Position{File: "sites/" + site + ".yaml", Line: 12, Column: 7}}}
	return d
}

func BenchmarkEncode(b *testing.B) {
	d := sampleDocument(1)
	b.Run("typed", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf, _ = AppendEncoded(buf[:0], d)
		}
	})
	b.Run("maps", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			m, _ := tomap.Convert(d)
			buf, _ = yamlenc.Append(buf[:0], m)
		}
	})
}

// Writing the documents of a fleet builds nothing per document.
func TestAppendEncodedDoesNotAllocate(t *testing.T) {
	d := sampleDocument(2)
	buf := make([]byte, 0, 64<<10)
	allocs := testing.AllocsPerRun(100, func() {
		var err error
		if buf, err = AppendEncoded(buf[:0], d); err != nil {
			t.Fatal(err)
		}
	})
	if allocs >= 1 {
		t.Errorf("%.1f allocations per document, want none", allocs)
	}
}
