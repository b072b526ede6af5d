package sim

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
)

// memStore is a Store in memory, standing in for another host of the
// simulation: it keeps what Write sends, as a hub's objects would.
type memStore struct {
	mu     sync.Mutex
	sites  map[string]SiteRecord
	clock  time.Time
	writes int
	closed bool
}

func (m *memStore) Load() ([]SiteRecord, time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []SiteRecord
	for _, r := range m.sites {
		out = append(out, r)
	}
	m.closed = false
	return out, m.clock, nil
}

func (m *memStore) Write(sites []SiteRecord, clock time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sites == nil {
		m.sites = map[string]SiteRecord{}
	}
	for _, w := range sites {
		if w.Delete {
			delete(m.sites, w.Name)
			continue
		}
		r := m.sites[w.Name]
		r.Name = w.Name
		if w.Desired != nil {
			r.Desired = w.Desired
		}
		if w.State != nil {
			r.State = w.State
		}
		m.sites[w.Name] = r
	}
	m.clock = clock
	m.writes++
	return nil
}

func (m *memStore) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}

// An engine on another Store commits to it, resumes from it with the same
// statuses, and closes it.
func TestStoreOption(t *testing.T) {
	ms := &memStore{}
	e, err := New(context.Background(), Options{Store: ms, Stepped: true})
	if err != nil {
		t.Fatal(err)
	}
	apply(t, e, newSite("ms", 1, 0).bundle(), "r1")
	runUntil(t, e, 30*time.Second, 3*time.Hour, func() bool { return status(t, e, "ms").Phase == engine.PhaseInstalling })
	before, now := status(t, e, "ms"), e.Now()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if !ms.closed || ms.writes == 0 || len(ms.sites) != 1 {
		t.Fatalf("store after close: closed %v, %d writes, %d sites", ms.closed, ms.writes, len(ms.sites))
	}
	e2, err := New(context.Background(), Options{Store: ms, Stepped: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e2.Close() })
	if !e2.Now().Equal(now) {
		t.Errorf("clock %v, want %v", e2.Now(), now)
	}
	if after := status(t, e2, "ms"); !reflect.DeepEqual(before, after) {
		t.Errorf("status after resume differs:\n%s\n%s", dump(t, before), dump(t, after))
	}
	runUntil(t, e2, 30*time.Second, 3*time.Hour, func() bool { return status(t, e2, "ms").Phase == engine.PhaseInstalled })
}

// Objects carries what the status reads, object by object: the Agents with
// their labels, the cluster's metadata and the completion's Secrets.
func TestObjectsMatchStatus(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("ob", 3, 1)
	apply(t, e, s.bundle(), "r1")
	runUntil(t, e, 30*time.Second, 5*time.Hour, func() bool { return status(t, e, "ob").Cluster.Installed })
	st := status(t, e, "ob")
	objs, err := e.Objects(context.Background(), "ob")
	if err != nil {
		t.Fatal(err)
	}
	if objs.ClusterDeployment == nil || !objs.ClusterDeployment.Installed || objs.ClusterDeployment.Metadata == nil {
		t.Fatalf("ClusterDeployment %+v", objs.ClusterDeployment)
	}
	aci := objs.AgentClusterInstall
	if aci == nil || aci.State != st.Cluster.State || aci.StateInfo != st.Cluster.StateInfo || aci.Percent != st.Cluster.Percent {
		t.Errorf("AgentClusterInstall %+v, status cluster %+v", aci, st.Cluster)
	}
	if len(objs.Agents) != len(st.Hosts) {
		t.Fatalf("%d agents, %d hosts", len(objs.Agents), len(st.Hosts))
	}
	byName := map[string]AgentObject{}
	for _, a := range objs.Agents {
		byName[a.Name] = a
	}
	for _, h := range st.Hosts {
		a, ok := byName[h.Agent]
		if !ok {
			t.Errorf("host %s: no Agent %s", h.Name, h.Agent)
			continue
		}
		if a.Labels[assisted.LabelAgentBMH] != h.Name || a.State != h.State || a.Stage != h.Stage || a.Percent != h.Percent || a.StatusRole != h.Role || a.Approved != h.Approved {
			t.Errorf("Agent %s %+v does not match host %+v", a.Name, a, h)
		}
	}
	if len(objs.Secrets) != 2 {
		t.Errorf("secrets %+v, want the kubeconfig and the password", objs.Secrets)
	}
	if err := e.Delete(context.Background(), "ob"); err != nil {
		t.Fatal(err)
	}
	runUntil(t, e, 30*time.Second, time.Hour, func() bool {
		_, err := e.Objects(context.Background(), "ob")
		return errors.Is(err, engine.ErrNotFound)
	})
}

// A site whose saved state cannot be read is left out and logged; the
// other sites resume, and the damaged one starts again from its bundle.
func TestUnreadableSiteDoesNotStopTheOthers(t *testing.T) {
	ms := &memStore{}
	e, err := New(context.Background(), Options{Store: ms, Stepped: true})
	if err != nil {
		t.Fatal(err)
	}
	apply(t, e, newSite("good", 1, 0).bundle(), "r1")
	bad := newSite("bad", 1, 0)
	apply(t, e, bad.bundle(), "r1")
	runUntil(t, e, 30*time.Second, 3*time.Hour, func() bool { return status(t, e, "good").Phase == engine.PhaseInstalled })
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	for _, damage := range []func(r *SiteRecord){
		func(r *SiteRecord) { r.State = []byte("{not json") },
		func(r *SiteRecord) { r.Unreadable = errors.New("ConfigMap x/y: gzip: invalid header") },
	} {
		r := ms.sites["bad"]
		damage(&r)
		ms.sites["bad"] = r
		var logs bytes.Buffer
		e2, err := New(context.Background(), Options{Store: ms, Stepped: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatalf("one damaged site stopped the engine: %v", err)
		}
		if got := status(t, e2, "good").Phase; got != engine.PhaseInstalled {
			t.Errorf("the intact site resumed as %s, want Installed", got)
		}
		if _, err := e2.Status(context.Background(), "bad"); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("the damaged site: %v, want not found until its bundle comes again", err)
		}
		if !strings.Contains(logs.String(), "site bad") || !strings.Contains(logs.String(), "starts again from its next bundle") {
			t.Errorf("the log does not name the damaged site and what happens to it:\n%s", logs.String())
		}
		apply(t, e2, bad.bundle(), "r2")
		runUntil(t, e2, 30*time.Second, 3*time.Hour, func() bool { return status(t, e2, "bad").Phase == engine.PhaseInstalled })
		if err := e2.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
