package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
	"github.com/siteops/siteops/render"
)

// A bundle that contradicts another site is refused with a condition on
// the object; the other site goes on (issue "Bad input").
func TestRefusals(t *testing.T) {
	cases := []struct {
		name    string
		second  func(first *siteBuilder) *render.Bundle
		kind    string
		reason  string
		message string
	}{
		{
			name: "a BareMetalHost with a MAC another site owns",
			second: func(first *siteBuilder) *render.Bundle {
				s := newSite("other", 1, 0)
				s.macBase = first.macBase
				return s.bundle()
			},
			kind: "BareMetalHost", reason: reasonDuplicateMAC,
			message: "BareMetalHost other/other-cp-0 boots from MAC",
		},
		{
			name: "an object another site applies",
			second: func(first *siteBuilder) *render.Bundle {
				b := newSite("copy", 1, 0).bundle()
				b.Objects = append(b.Objects, obj("Agent", "first", "agent-1", 0, map[string]any{"spec": map[string]any{"approved": true}}))
				return b
			},
			kind: "Agent", reason: reasonOwnedElsewhere,
			message: "Agent first/agent-1 is already applied by site first; an object belongs to one site: remove it from copy or from first",
		},
		{
			name: "two hosts of one site with one MAC",
			second: func(*siteBuilder) *render.Bundle {
				s := newSite("twins", 3, 0)
				b := s.bundle()
				for _, o := range b.Objects {
					if o.Kind == render.KindBareMetalHost {
						o.Content["spec"].(map[string]any)["bootMACAddress"] = "0a:5e:ff:00:00:01"
					}
				}
				return b
			},
			kind: "BareMetalHost", reason: reasonDuplicateMAC,
			message: "site twins: BareMetalHost twins/twins-cp-0 and BareMetalHost twins/twins-cp-1 both boot from MAC 0a:5e:ff:00:00:01; give each node its own bootMACAddress",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newStepped(t, Options{})
			first := newSite("first", 1, 0)
			fb := first.bundle()
			fb.Objects = append(fb.Objects, obj("Agent", "first", "agent-1", 0, map[string]any{"spec": map[string]any{"approved": true}}))
			apply(t, e, fb, "r1")
			b := c.second(first)
			apply(t, e, b, "r1")
			o := observe(t, e, b.Site)
			o.until(10*time.Second, time.Minute, phaseIs(engine.PhaseFailed))
			cond := findCond(t, o.last, c.kind, condAccepted)
			if cond.Status != assisted.False || cond.Reason != c.reason || !strings.Contains(cond.Message, c.message) {
				t.Errorf("condition %+v", cond)
			}
			if !strings.HasPrefix(o.last.Message, "Refused: ") || o.last.Revision != "" {
				t.Errorf("status %q revision %q", o.last.Message, o.last.Revision)
			}
			f := observe(t, e, "first")
			f.until(time.Minute, 3*time.Hour, phaseIs(engine.PhaseInstalled))
		})
	}
}

// Once installation started, the AgentClusterInstall spec is immutable:
// the change is refused on the object and the installation goes on with
// the accepted spec (pkg/webhooks).
func TestImmutableAfterInstallStarted(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("im", 1, 0)
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "im")
	o.until(10*time.Second, 2*time.Hour, phaseIs(engine.PhaseInstalling))
	s.aciSpec = map[string]any{"networking": map[string]any{
		"clusterNetwork": []any{map[string]any{"cidr": "10.132.0.0/14", "hostPrefix": 23}},
		"machineNetwork": []any{map[string]any{"cidr": "192.0.2.0/24"}},
		"serviceNetwork": []any{"172.30.0.0/16"},
	}}
	apply(t, e, s.bundle(), "r2")
	o.until(10*time.Second, 3*time.Hour, phaseIs(engine.PhaseInstalled))
	c := findCond(t, o.last, "AgentClusterInstall", condAccepted)
	want := "site im: AgentClusterInstall im/im: Attempted to change AgentClusterInstall.Spec which is immutable after install started, except for ClusterMetadata,IgnitionEndpoint fields. Unsupported change: spec.networking; revert the change in the site definition"
	if c.Reason != reasonImmutable || c.Message != want {
		t.Errorf("condition %+v", c)
	}
	if o.last.Revision != "r2" || !strings.Contains(o.last.Message, "Refused") {
		t.Errorf("revision %q message %q", o.last.Revision, o.last.Message)
	}
	// Reverting removes the refusal.
	s.aciSpec = nil
	apply(t, e, s.bundle(), "r3")
	if err := e.Advance(context.Background(), time.Second); err != nil {
		t.Fatal(err)
	}
	st := status(t, e, "im")
	for _, r := range st.Resources {
		for _, c := range r.Conditions {
			if c.Type == condAccepted {
				t.Errorf("refusal left on %s %s", r.Kind, r.Name)
			}
		}
	}
}

// The same history gives the same status bytes; a status does not change
// while nothing happens; applying the same bundle again changes nothing.
func TestDeterministicStatus(t *testing.T) {
	run := func() []byte {
		e := newStepped(t, Options{})
		a, b := newSite("a", 1, 0), newSite("b", 3, 1)
		a.macBase, b.macBase = 60001, 60002 // the same machines in both runs
		for _, b := range []*render.Bundle{a.bundle(), b.bundle()} {
			apply(t, e, b, "r1")
		}
		runUntil(t, e, time.Minute, 4*time.Hour, func() bool {
			return status(t, e, "a").Phase == engine.PhaseInstalled && status(t, e, "b").Phase == engine.PhaseInstalled
		})
		out, _ := json.Marshal([]engine.SiteStatus{status(t, e, "a"), status(t, e, "b")})
		return out
	}
	one, two := run(), run()
	if string(one) != string(two) {
		t.Error("two runs of the same history gave different statuses")
	}

	e := newStepped(t, Options{})
	s := newSite("idle", 1, 0)
	apply(t, e, s.bundle(), "r1")
	runUntil(t, e, time.Minute, 3*time.Hour, func() bool { return status(t, e, "idle").Cluster.State == "adding-hosts" })
	if err := e.Advance(context.Background(), time.Minute); err != nil {
		t.Fatal(err)
	}
	before := status(t, e, "idle")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes := e.Subscribe(ctx)
	apply(t, e, s.bundle(), "r1")
	if err := e.Advance(context.Background(), 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	if after := status(t, e, "idle"); !reflect.DeepEqual(before, after) {
		a, _ := json.Marshal(before)
		b, _ := json.Marshal(after)
		t.Errorf("status changed while nothing happened:\n%s\n%s", a, b)
	}
	select {
	case name := <-changes:
		t.Errorf("subscriber told of %s though nothing changed", name)
	default:
	}
}

// Subscribers hear of each changed site; a slow reader gets the latest.
func TestSubscribe(t *testing.T) {
	e := newStepped(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	changes := e.Subscribe(ctx)
	apply(t, e, newSite("s1", 1, 0).bundle(), "r1")
	apply(t, e, newSite("s2", 1, 0).bundle(), "r1")
	for range 5 {
		if err := e.Advance(context.Background(), time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	deadline := time.After(5 * time.Second)
	for len(seen) < 2 {
		select {
		case n := <-changes:
			seen[n] = true
		case <-deadline:
			t.Fatalf("heard of %v only", seen)
		}
	}
	cancel()
	for range changes {
	}
}

// Secret values in a bundle reach neither the status nor the store: the
// engine keeps Secret names only.
func TestSecretsStayInTheirSecret(t *testing.T) {
	dir := t.TempDir()
	e := newStepped(t, Options{StateDir: dir})
	b := newSite("sec", 1, 0).bundle()
	const value = "c2VjcmV0LXB1bGwtc2VjcmV0LXZhbHVlLTQyNDI0Mg=="
	b.Objects = append(b.Objects,
		obj("Secret", "sec", "pull-secret", 0, map[string]any{"type": "kubernetes.io/dockerconfigjson", "data": map[string]any{".dockerconfigjson": value}}),
		obj("Secret", "sec", "sec-cp-0-bmc", 0, map[string]any{"stringData": map[string]any{"password": "hunter2-plain-bmc"}}))
	apply(t, e, b, "r1")
	runUntil(t, e, time.Minute, 3*time.Hour, func() bool { return status(t, e, "sec").Phase == engine.PhaseInstalled })
	out, _ := json.Marshal(status(t, e, "sec"))
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := os.ReadFile(filepath.Join(dir, StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{value, "hunter2-plain-bmc"} {
		if strings.Contains(string(out), v) || strings.Contains(string(db), v) {
			t.Errorf("secret value %q copied", v)
		}
	}
	if !strings.Contains(string(db), "sec/pull-secret") {
		t.Error("the Secret's name is not kept either")
	}
}

// Malformed objects never panic the engine: they are read as absent or
// refused, and the engine goes on.
func TestMalformedBundles(t *testing.T) {
	e := newStepped(t, Options{})
	mangle := []func(*render.Bundle){
		func(b *render.Bundle) { b.Objects = append(b.Objects, nil, &render.Object{Kind: "InfraEnv"}) },
		func(b *render.Bundle) {
			for _, o := range b.Objects {
				o.Content["spec"] = "not a map"
			}
		},
		func(b *render.Bundle) {
			for _, o := range b.Objects {
				if o.Kind == render.KindAgentClusterInstall {
					o.Content["spec"].(map[string]any)["provisionRequirements"] = map[string]any{"controlPlaneAgents": "three"}
				}
			}
		},
		func(b *render.Bundle) {
			for _, o := range b.Objects {
				if o.Kind == render.KindBareMetalHost {
					o.Content["metadata"].(map[string]any)["annotations"] = []any{"x"}
				}
			}
		},
		func(b *render.Bundle) {
			for _, o := range b.Objects {
				if o.Kind == render.KindAgentClusterInstall {
					o.Content["metadata"].(map[string]any)["annotations"] = map[string]any{assisted.AnnotationInstallConfigOverrides: "{not json"}
				}
			}
		},
	}
	for i, m := range mangle {
		b := newSite(fmt.Sprintf("bad-%d", i), 3, 0).bundle()
		m(b)
		if err := e.Apply(context.Background(), b, "r1"); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
	}
	if err := e.Apply(context.Background(), &render.Bundle{}, "r1"); err == nil {
		t.Error("a bundle without a site was accepted")
	}
	good := newSite("fine", 1, 0)
	apply(t, e, good.bundle(), "r1")
	runUntil(t, e, time.Minute, 3*time.Hour, func() bool { return status(t, e, "fine").Phase == engine.PhaseInstalled })
	st := status(t, e, "bad-4")
	if st.Phase != engine.PhaseFailed || !strings.Contains(st.Message, "Failed to parse 'agent-install.openshift.io/install-config-overrides' annotation") {
		t.Errorf("overrides: %s %q", st.Phase, st.Message)
	}
	st = status(t, e, "bad-2")
	if st.Phase != engine.PhaseFailed || !strings.Contains(st.Message, "spec.provisionRequirements.controlPlaneAgents") {
		t.Errorf("counts: %s %q", st.Phase, st.Message)
	}
}
