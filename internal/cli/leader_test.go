package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/siteops/siteops/internal/hubtest"
)

// replica is one `siteops run --leader-elect` running in-process.
type replica struct {
	dir    string
	stderr syncBuffer
	cancel context.CancelFunc
	code   chan int
}

// replicaArgs are the arguments of a replica writing status into dir.
func replicaArgs(t *testing.T, kubeconfig, leaseNS, dir string) []string {
	t.Helper()
	if err := os.CopyFS(dir, os.DirFS("../../examples/fleet")); err != nil {
		t.Fatal(err)
	}
	return []string{"run", "--engine", "hub", "--kubeconfig", kubeconfig, "--leader-elect", "--leader-election-namespace", leaseNS,
		"--leader-election-lease-duration", "4s", "--leader-election-renew-deadline", "3s", "--leader-election-retry-period", "500ms",
		"--dir", dir, "--state-dir", t.TempDir(), "--listen", "", "--extra-manifests-dir", "../../examples/extra-manifests", "--status-interval", "1s"}
}

// startReplica runs a replica in-process.
func startReplica(t *testing.T, kubeconfig, leaseNS string) *replica {
	t.Helper()
	r := &replica{dir: t.TempDir(), code: make(chan int, 1)}
	args := replicaArgs(t, kubeconfig, leaseNS, r.dir)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	r.cancel = cancel
	t.Cleanup(cancel)
	go func() { r.code <- Main(ctx, args, &bytes.Buffer{}, &r.stderr) }()
	return r
}

// startReplicaProcess runs a replica as a process of its own (the test
// binary running siteops), so that the test can kill it.
func startReplicaProcess(t *testing.T, kubeconfig, leaseNS string) (*replica, *exec.Cmd) {
	t.Helper()
	r := &replica{dir: t.TempDir(), code: make(chan int, 1)}
	args := replicaArgs(t, kubeconfig, leaseNS, r.dir)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	r.cancel = cancel
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envMainArgs+"="+strings.Join(args, "\n"))
	cmd.Stderr = &r.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = cmd.Wait()
		r.code <- cmd.ProcessState.ExitCode()
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return r, cmd
}

func (r *replica) wroteStatus() bool {
	_, err := os.Stat(filepath.Join(r.dir, "status", "README.md"))
	return err == nil
}

// TestLeaderElection runs two replicas against one hub: only the holder
// of the lease writes status; when it stops, the other takes the lease
// and goes on.
func TestLeaderElection(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const leaseNS = "siteops-leader-test"
	h, cs := leaseHub(t, ctx, leaseNS)

	a := startReplica(t, h.Kubeconfig(), leaseNS)
	waitUntil(t, ctx, "the first replica leads and writes status", a.wroteStatus)
	b := startReplica(t, h.Kubeconfig(), leaseNS)
	waitUntil(t, ctx, "the second replica sees the leader", func() bool { return strings.Contains(b.stderr.String(), "another replica leads") })
	time.Sleep(6 * time.Second) // more than a lease duration
	if b.wroteStatus() {
		t.Fatalf("the replica without the lease wrote status:\n%s", b.stderr.String())
	}
	lease, err := cs.CoordinationV1().Leases(leaseNS).Get(ctx, leaseName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first := *lease.Spec.HolderIdentity

	a.cancel()
	if code := <-a.code; code != ExitOK {
		t.Fatalf("the stopped leader exited %d:\n%s", code, a.stderr.String())
	}
	waitUntil(t, ctx, "the second replica takes over and writes status", b.wroteStatus)
	lease, err = cs.CoordinationV1().Leases(leaseNS).Get(ctx, leaseName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *lease.Spec.HolderIdentity == first || !strings.Contains(b.stderr.String(), "msg=leading") {
		t.Errorf("lease holder %q (first %q); second replica's log:\n%s", *lease.Spec.HolderIdentity, first, b.stderr.String())
	}
	b.cancel()
	<-b.code
}

// TestLeaderKilled kills the leader (SIGKILL: it cannot release the
// lease): the other replica takes the lease once it expires and writes
// status; it wrote none before.
func TestLeaderKilled(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const leaseNS = "siteops-leader-kill-test"
	h, _ := leaseHub(t, ctx, leaseNS)
	a, cmd := startReplicaProcess(t, h.Kubeconfig(), leaseNS)
	waitUntil(t, ctx, "the first replica leads and writes status", a.wroteStatus)
	b := startReplica(t, h.Kubeconfig(), leaseNS)
	waitUntil(t, ctx, "the second replica sees the leader", func() bool { return strings.Contains(b.stderr.String(), "another replica leads") })
	if b.wroteStatus() {
		t.Fatal("the replica without the lease wrote status")
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	<-a.code
	waitUntil(t, ctx, "the second replica takes over and writes status", b.wroteStatus)
	if took := time.Since(killed); took < 2*time.Second {
		t.Errorf("took over %s after the kill, before the lease could expire", took)
	}
	if !strings.Contains(b.stderr.String(), "msg=leading") {
		t.Errorf("the second replica does not say it leads:\n%s", b.stderr.String())
	}
	b.cancel()
	<-b.code
}

// leaseHub is the shared hub prepared for the example fleet, with the
// namespace of the lease.
func leaseHub(t *testing.T, ctx context.Context, leaseNS string) (*hubtest.Hub, kubernetes.Interface) {
	t.Helper()
	h := hubtest.Shared(t)
	prepareHub(t, ctx, h, "../../examples/fleet")
	cs := kubernetes.NewForConfigOrDie(h.Config())
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: leaseNS}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	return h, cs
}

func waitUntil(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not before the deadline", what)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
