package dashboard

import (
	"fmt"
	"sync"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/reconciler/status"
	"github.com/siteops/siteops/sites"
)

// Hostile content a repository could carry in a site's name or text.
const (
	hostileName    = `evil<img src=x onerror="window.pwned=1">`
	hostileMessage = `</td><script>window.pwned=2</script><b>bold</b>`
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func vt(min int) time.Time { return epoch.Add(time.Duration(min) * time.Minute) }

func rev(n int) string { return fmt.Sprintf("main@sha1:%040x", n) }

// Documents named after the state they show.

func docInstalled(name string) status.Document {
	return status.Document{SiteStatus: engine.SiteStatus{
		Site: name, Phase: engine.PhaseInstalled, Message: "The installation has completed: Cluster is installed",
		Revision: rev(1), Cluster: engine.ClusterStatus{State: "installed", StateInfo: "Cluster is installed", Percent: 100},
		Hosts: []engine.HostStatus{{Name: name + "-node1", Hostname: "node1." + name, Role: "master",
			ProvisioningState: "provisioned", State: "installed", StateInfo: "Done", Stage: "Done", Percent: 100}},
	}, ObservedRevision: rev(1)}
}

func docInstalling(name string, percent int) status.Document {
	return status.Document{SiteStatus: engine.SiteStatus{
		Site: name, Phase: engine.PhaseInstalling, Message: "The installation is in progress: Installation in progress",
		Revision: rev(2), Cluster: engine.ClusterStatus{State: "installing", StateInfo: "Installation in progress", Percent: percent},
		Hosts: []engine.HostStatus{
			{Name: name + "-m0", Hostname: "m0", Role: "master", ProvisioningState: "provisioned", State: "installing-in-progress", Stage: "Writing image to disk", Percent: 37},
			{Name: name + "-m1", Hostname: "m1", Role: "master", ProvisioningState: "provisioned", State: "installing-in-progress", Stage: "Rebooting", Percent: 62},
			{Name: name + "-w0", Hostname: "w0", Role: "worker", ProvisioningState: "provisioned", State: "installed", Stage: "Done", Percent: 100},
		},
		Resources: []engine.ResourceStatus{{Kind: "AgentClusterInstall", Namespace: name, Name: name, Conditions: []engine.Condition{
			{Type: "Completed", Status: "False", Reason: "InstallationInProgress", Message: "The installation is in progress: Installation in progress", LastTransitionTime: vt(12)},
			{Type: "Failed", Status: "False", Reason: "InstallationNotFailed", Message: "The installation has not failed", LastTransitionTime: vt(1)},
		}}},
		Events: []engine.Event{
			{Time: vt(1), Object: "InfraEnv/" + name, Reason: "ImageCreated", Message: "Discovery image created"},
			{Time: vt(12), Object: "AgentClusterInstall/" + name, Reason: "InstallationStarted", Message: "Installation started"},
		},
	}, ObservedRevision: rev(2)}
}

func docFailed(name string) status.Document {
	d := docInstalling(name, 44)
	d.Phase, d.Reason = engine.PhaseFailed, engine.ReasonInstallFailed
	d.Message = "The installation failed: cluster has hosts in error"
	d.Cluster.State = "error"
	d.Hosts[0].State, d.Hosts[0].StateInfo = "error", "Host failed to install because its installation stage Writing image to disk took longer than expected 30m0s"
	return d
}

func docPolicyFailed(name string) status.Document {
	return status.Document{SiteStatus: engine.SiteStatus{
		Site: name, Phase: engine.PhasePolicyFailed, Reason: engine.ReasonPolicyDenied, Message: "A deny policy finding blocks this site; fix it in a new commit.",
	}, ObservedRevision: rev(3), Findings: []report.Finding{
		{Rule: "ztp.network.vip-in-machine-network", Severity: report.Deny, Site: name, Field: "spec.clusters[0].apiVIP",
			Message: "apiVIP 10.0.0.5 is outside the machine network 192.168.1.0/24", Pos: sites.Position{File: "sites/" + name + ".yaml", Line: 14, Column: 7},
			Remediation: "Pick an apiVIP inside a machineNetwork CIDR."},
		{Rule: "ztp.ssh.key-present", Severity: report.Warn, Site: name, Message: "no SSH public key", Pos: sites.Position{File: "sites/" + name + ".yaml", Line: 9},
			Remediation: "Set sshPublicKey to reach the hosts while they install."},
	}}
}

// docStuck is provisioning with a host that waits for input.
func docStuck(name string) status.Document {
	return status.Document{SiteStatus: engine.SiteStatus{
		Site: name, Phase: engine.PhaseProvisioning, Reason: engine.ReasonValidationsFailing, Message: "Hosts are being discovered and validated",
		Revision: rev(2), Cluster: engine.ClusterStatus{State: "insufficient", StateInfo: "Cluster is not ready for install",
			Validations: []engine.Validation{{ID: "sufficient-masters-count", Status: "failure", Message: "Single-node clusters must have a single control plane node and no workers."}}},
		Hosts: []engine.HostStatus{{Name: name + "-node1", Role: "master", ProvisioningState: "provisioned", State: "insufficient",
			StateInfo: "Host does not meet the minimum hardware requirements: Insufficient memory",
			Validations: []engine.Validation{
				{ID: "has-memory-for-role", Status: "failure", Message: "Require at least 32.00 GiB RAM for role master, found only 16.00 GiB"},
				{ID: "ntp-synced", Status: "pending", Message: "Host NTP is pending"},
			}}},
	}, ObservedRevision: rev(2)}
}

func docPending(name string) status.Document {
	return status.Document{SiteStatus: engine.SiteStatus{Site: name, Phase: engine.PhasePending, Message: "Waiting for the hosts to boot the discovery image", Revision: rev(2)}, ObservedRevision: rev(2)}
}

func docOrphaned(name string) status.Document {
	d := docInstalled(name)
	d.Orphaned, d.Reason = true, engine.ReasonOrphaned
	return d
}

func docHostile() status.Document {
	d := docFailed(hostileName)
	d.Message = hostileMessage
	d.Hosts[0].StateInfo = hostileMessage
	d.Events = append(d.Events, engine.Event{Time: vt(30), Object: hostileName, Reason: "Hostile", Message: hostileMessage})
	d.Findings = []report.Finding{{Rule: "user.<b>rule</b>", Severity: report.Deny, Message: hostileMessage, Remediation: hostileMessage,
		Pos: sites.Position{File: "sites/<x>.yaml", Line: 3}}}
	return d
}

// sampleFleet has one site of each state, in no particular order.
func sampleFleet() []status.Document {
	return []status.Document{
		docInstalled("sno-installed"),
		docPending("sno-pending"),
		docInstalling("ha-installing", 58),
		docStuck("sno-stuck"),
		docOrphaned("sno-orphaned"),
		docPolicyFailed("compact-policy"),
		docFailed("ha-failed"),
	}
}

// bigFleet has n sites, about one in 50 failed and the rest spread over
// the other phases.
func bigFleet(n int) []status.Document {
	docs := make([]status.Document, n)
	for i := range docs {
		name := fmt.Sprintf("site-%05d", i)
		switch {
		case i%50 == 7:
			docs[i] = docFailed(name)
		case i%4 == 0:
			docs[i] = docInstalling(name, i%100)
		case i%4 == 1:
			docs[i] = docPending(name)
		default:
			docs[i] = docInstalled(name)
		}
	}
	return docs
}

// fleet is a fleet whose documents a test changes while a server shows
// it, as the loop's would change.
type fleet struct {
	mu   sync.Mutex
	docs []status.Document
}

func (f *fleet) Documents() []status.Document {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.docs
}

func (f *fleet) set(docs []status.Document) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.docs = docs
}
