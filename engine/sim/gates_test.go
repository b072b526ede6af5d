package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
)

// A failed image pull fails the preparation only: container-images-available
// is not in the sufficient-for-install list, so the host returns to known
// with the failure still listed, and the cluster prepares again
// (internal/host/statemachine.go "Preparing failed image pull host move to
// preparing failed", "Failed preparing to known when cluster is no longer
// preparing").
func TestImagePullFailureRetriesPreparation(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("ip", 1, 0)
	s.hardware["ip-cp-0"] = "imagePull=fail"
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "ip")
	want := "Failed to fetch container images needed for installation from quay.io/openshift-release-dev/ocp-release:4.20.6-x86_64. This may be due to a network hiccup. Retry to install again. If this problem persists, check your network settings to make sure you’re not blocked."
	var sawKnownWithFailure bool
	o.until(5*time.Second, 5*time.Hour, func(st engine.SiteStatus) bool {
		h := hostNamed(st, "ip-cp-0")
		if h.State == string(assisted.HostPreparingFailed) && h.StateInfo != "Host failed to prepare for installation due to following failing validation(s): "+want {
			t.Fatalf("preparing-failed text %q", h.StateInfo)
		}
		if h.State == string(assisted.HostKnown) && slices.Contains(o.hostSt["ip-cp-0"], string(assisted.HostPreparingFailed)) {
			for _, v := range h.Validations {
				if v.ID == assisted.HVContainerImagesAvailable && v.Status == "failure" && v.Message == want {
					sawKnownWithFailure = true
				}
			}
		}
		// Preparation starts again after the failure.
		seq := strings.Join(o.hostSt["ip-cp-0"], ",")
		return sawKnownWithFailure && strings.Contains(seq, "preparing-failed,known,preparing-for-installation")
	})
}

// An ignored validation keeps its failure in the output; it only stops
// blocking the host (internal/host/refresh_status_preprocessor.go
// preprocess).
func TestIgnoredValidationKeepsItsFailure(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("ig", 1, 0)
	s.hardware["ig-cp-0"] = "defaultRoute=false"
	s.aciAnnotations = map[string]string{assisted.AnnotationIgnoredHostValidations: assisted.HVHasDefaultRoute}
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "ig")
	o.until(10*time.Second, 2*time.Hour, func(st engine.SiteStatus) bool {
		h := hostNamed(st, "ig-cp-0")
		if h.State != string(assisted.HostKnown) && !slices.Contains(o.hostSt["ig-cp-0"], string(assisted.HostKnown)) {
			return false
		}
		for _, v := range h.Validations {
			if v.ID == assisted.HVHasDefaultRoute {
				return v.Status == "failure" && v.Message == "Host has not yet been configured with a default route."
			}
		}
		t.Fatalf("the ignored validation left the output: %+v", h.Validations)
		return false
	})
	o.until(time.Minute, 5*time.Hour, phaseIs(engine.PhaseInstalled))
}

// A day-2 master follows the master stage list: stages are chosen by role
// and bootstrap only (internal/host/common.go FindMatchingStages).
func TestDay2MasterGetsMasterStages(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("d2m", 3, 0)
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "d2m")
	o.until(time.Minute, 4*time.Hour, func(st engine.SiteStatus) bool { return st.Cluster.State == "adding-hosts" })
	s.extraHosts = []string{"d2m-cp-new"}
	s.annotations["d2m-cp-new"] = map[string]string{"bmac.agent-install.openshift.io/role": "master"}
	apply(t, e, s.bundle(), "r2")
	o.until(10*time.Second, 3*time.Hour, func(st engine.SiteStatus) bool {
		return hostNamed(st, "d2m-cp-new").State == string(assisted.HostAddedToExistingCluster)
	})
	if got, want := o.stages["d2m-cp-new"], stageNames(assisted.StagesMaster); !slices.Equal(got, want) {
		t.Errorf("day-2 master stages %v, want %v", got, want)
	}
	if h := hostNamed(o.last, "d2m-cp-new"); h.Percent != 100 {
		t.Errorf("day-2 master at %d%%", h.Percent)
	}
}

// The bare-metal operator passes through preparing between inspecting
// and available (baremetal-operator provisioning states).
func TestBareMetalHostPreparesBeforeAvailable(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("bmo", 1, 0)
	apply(t, e, s.bundle(), "r1")
	var seen []string
	runUntil(t, e, 5*time.Second, time.Hour, func() bool {
		p := hostNamed(status(t, e, "bmo"), "bmo-cp-0").ProvisioningState
		if p != "" && (len(seen) == 0 || seen[len(seen)-1] != p) {
			seen = append(seen, p)
		}
		return p == assisted.BMHStateProvisioned
	})
	i, j := slices.Index(seen, assisted.BMHStatePreparing), slices.Index(seen, assisted.BMHStateAvailable)
	if i < 0 || j < 0 || i > j || !slices.Contains(seen[:i], assisted.BMHStateRegistering) {
		t.Errorf("provisioning states %v: want registering, then preparing, then available", seen)
	}
}

// The 24-hour installation timeout applies only with soft timeouts, which
// are off by default as upstream; with them a host that stops reporting
// does not fail on its own (internal/cluster/statemachine.go,
// internal/host/statemachine.go SoftTimeoutsEnabled).
func TestSoftTimeouts(t *testing.T) {
	for _, soft := range []bool{false, true} {
		t.Run(fmt.Sprintf("soft=%v", soft), func(t *testing.T) {
			e := newStepped(t, Options{SoftTimeouts: soft})
			s := newSite("st", 1, 0)
			s.hardware["st-cp-0"] = "disconnectAt=writing-image-to-disk"
			apply(t, e, s.bundle(), "r1")
			o := observe(t, e, "st")
			o.until(time.Minute, 3*time.Hour, func(st engine.SiteStatus) bool {
				return hostNamed(st, "st-cp-0").Stage == string(assisted.StageWritingImageToDisk)
			})
			if !soft {
				o.until(time.Minute, time.Hour, func(st engine.SiteStatus) bool {
					h := hostNamed(st, "st-cp-0")
					return h.State == string(assisted.HostError) && h.StateInfo == assisted.InfoDisconnectedInstalling
				})
				return
			}
			o.holds(10*time.Minute, 20*time.Hour, func(st engine.SiteStatus) bool {
				return hostNamed(st, "st-cp-0").State == string(assisted.HostInstallingInProgress) && st.Cluster.State == string(assisted.ClusterInstalling)
			})
			o.until(10*time.Minute, 5*time.Hour, func(st engine.SiteStatus) bool {
				return st.Cluster.State == string(assisted.ClusterError) && st.Cluster.StateInfo == "cluster installation timeout (1440 minutes) has expired"
			})
		})
	}
}
