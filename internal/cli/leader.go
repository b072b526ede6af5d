package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// leaseName is the Lease replicas of siteops run compete for.
const leaseName = "siteops"

// The lease timings of Kubernetes' own controllers (kube-controller-manager's
// --leader-elect-lease-duration, -renew-deadline and -retry-period
// defaults, k8s.io/component-base/config/v1alpha1/defaults.go).
const (
	defaultLeaseDuration = 15 * time.Second
	defaultRenewDeadline = 10 * time.Second
	defaultRetryPeriod   = 2 * time.Second
)

// errLostLease ends a replica that lost the lease: it must not write.
var errLostLease = errors.New("lost the leader lease; another replica leads now")

type leaderFlags struct {
	elect                 bool
	namespace             string
	lease, renew, retryIn time.Duration
}

func (f *leaderFlags) register(fl *pflag.FlagSet) {
	fl.BoolVar(&f.elect, "leader-elect", false, "with --engine hub: run as one of several replicas; only the holder of the Lease "+leaseName+" applies and writes status")
	fl.StringVar(&f.namespace, "leader-election-namespace", "siteops", "namespace of the Lease on the hub")
	fl.DurationVar(&f.lease, "leader-election-lease-duration", defaultLeaseDuration, "how long a replica waits after the leader's last renewal before it takes over")
	fl.DurationVar(&f.renew, "leader-election-renew-deadline", defaultRenewDeadline, "how long the leader tries to renew before it stops writing and exits")
	fl.DurationVar(&f.retryIn, "leader-election-retry-period", defaultRetryPeriod, "how often replicas try to take or renew the lease")
}

func (f *leaderFlags) check(eng *engineFlags) error {
	if !f.elect {
		return nil
	}
	if eng.engine != engineHub {
		return errors.New("--leader-elect goes with --engine hub: the lease lives on the hub")
	}
	if !(f.lease > f.renew && f.renew > f.retryIn && f.retryIn > 0) {
		return errors.New("--leader-election-lease-duration > --leader-election-renew-deadline > --leader-election-retry-period > 0")
	}
	return nil
}

// runLeading runs run only while this process holds the lease. A replica
// that loses it stops run (its context is cancelled within the renew
// deadline, before another replica can take the lease) and returns
// errLostLease; stopping ctx releases the lease for the next replica.
func runLeading(ctx context.Context, f *runFlags, log *slog.Logger, run func(context.Context) error) error {
	if !f.leader.elect {
		return run(ctx)
	}
	cfg, err := hubConfig(&f.eng)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	id := replicaID()
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Name: leaseName, Namespace: f.leader.namespace},
		Client:     cs.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: id},
	}
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// leading receives the context of the term this replica leads.
	leading := make(chan context.Context, 1)
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   f.leader.lease,
		RenewDeadline:   f.leader.renew,
		RetryPeriod:     f.leader.retryIn,
		ReleaseOnCancel: true,
		Name:            leaseName,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(c context.Context) { leading <- c },
			OnStoppedLeading: func() {},
			OnNewLeader: func(leader string) {
				if leader != id {
					log.Info("another replica leads", "leader", leader, "identity", id)
				}
			},
		},
	})
	if err != nil {
		return usageError("%v", err)
	}
	log.Info("waiting for the lease", "lease", f.leader.namespace+"/"+leaseName, "identity", id)
	elector := make(chan struct{})
	go func() {
		le.Run(lctx)
		close(elector)
	}()
	select {
	case <-elector: // ctx ended before this replica led
		return ctx.Err()
	case term := <-leading:
		log.Info("leading", "lease", f.leader.namespace+"/"+leaseName, "identity", id)
		err := run(term)
		// The term ended while ctx did not: the lease was lost.
		lost := term.Err() != nil && ctx.Err() == nil
		cancel() // releases the lease
		<-elector
		if lost {
			return &exitError{code: ExitFailure, err: errLostLease}
		}
		return err
	}
}

// replicaID names this process in the Lease: host name and a random
// suffix, so that two replicas on one host differ.
func replicaID() string {
	host, err := os.Hostname()
	if err != nil {
		host = "siteops"
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s_%s", host, hex.EncodeToString(b))
}
