package hubsim_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/siteops/siteops/engine/assisted"
	"github.com/siteops/siteops/internal/hubtest"
)

// startChild runs the simulator in a child process (this test binary),
// killed at the latest when the test ends.
func startChild(t *testing.T, kubeconfig, test string) *exec.Cmd {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	// At 600 virtual seconds per second a site installs in a few
	// seconds: the kills land in every stage.
	cmd.Env = append(os.Environ(), envChild+"="+kubeconfig+"\n"+test+"\n600")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	return cmd
}

// The simulator killed with SIGKILL at random points and started again
// resumes from its state in the API server: every site ends installed,
// with one Agent per host and every condition the AgentClusterInstall
// carries; a further restart changes none of it.
func TestKilledAndRestarted(t *testing.T) {
	h := hubtest.Shared(t)
	const test = "kill"
	var names []string
	for i := range 4 {
		name := fmt.Sprintf("kill-sno-%d", i)
		b, err := hubtest.ExampleBundle(repoRoot, exampleSNO, name)
		if err != nil {
			t.Fatal(err)
		}
		// Each site its own machine.
		for _, o := range b.Objects {
			if mac, ok, _ := unstructured.NestedString(o.Content, "spec", "bootMACAddress"); ok {
				_ = unstructured.SetNestedField(o.Content, fmt.Sprintf("%s%d", mac[:len(mac)-1], i), "spec", "bootMACAddress")
			}
		}
		applyWithClient(t, h.Config(), b, test)
		names = append(names, name)
	}
	dyn := dynamic.NewForConfigOrDie(h.Config())
	completed := func() int {
		n := 0
		for _, name := range names {
			if aci, err := get(t, dyn, gvrACI, name, name); err == nil {
				if c, _ := condTypes(aci); c[assisted.CondCompleted] == "True" {
					n++
				}
			}
		}
		return n
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 11))
	kills := 0
	for completed() < len(names) && kills < 40 {
		cmd := startChild(t, h.Kubeconfig(), test)
		time.Sleep(time.Duration(150+rng.IntN(900)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		kills++
	}
	t.Logf("%d kills", kills)
	startChild(t, h.Kubeconfig(), test)
	waitFor(t, "every site completes", func() (bool, string) {
		n := completed()
		return n == len(names), fmt.Sprintf("%d of %d completed", n, len(names))
	})
	times := map[string]string{}
	check := func() {
		for _, name := range names {
			agents, err := dyn.Resource(gvrAgent).Namespace(name).List(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(agents.Items) != 1 {
				t.Errorf("site %s has %d Agents, want 1", name, len(agents.Items))
			}
			aci, err := get(t, dyn, gvrACI, name, name)
			if err != nil {
				t.Fatal(err)
			}
			conds, msg := condTypes(aci)
			for _, want := range []string{"SpecSynced", "Validated", "RequirementsMet", "Completed", "Failed", "Stopped"} {
				if _, ok := conds[want]; !ok {
					t.Errorf("site %s lacks condition %s: %s", name, want, msg)
				}
			}
			list, _, _ := unstructured.NestedSlice(aci.Object, "status", "conditions")
			for _, c := range list {
				m, _ := c.(map[string]any)
				if m["type"] == assisted.CondCompleted {
					at, _ := m["lastTransitionTime"].(string)
					if prev, ok := times[name]; ok && prev != at {
						t.Errorf("site %s completed again after a restart: %s, then %s", name, prev, at)
					}
					times[name] = at
				}
			}
		}
	}
	check()
	// One more kill and start: nothing installs again.
	cmd := startChild(t, h.Kubeconfig(), test)
	time.Sleep(2 * time.Second)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	check()
}
