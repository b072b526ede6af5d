package cli

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/hub"
	"github.com/siteops/siteops/engine/sim"
)

// The engines siteops run can drive.
const (
	engineSim = "sim"
	engineHub = "hub"
)

// engineFlags choose and configure the installation engine.
type engineFlags struct {
	engine         string
	kubeconfig     string
	kubeContext    string
	kubeQPS        float32
	kubeBurst      int
	forceConflicts bool
	instance       string
}

func (f *engineFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.engine, "engine", engineSim, "installation engine: sim (the embedded simulation) or hub (a Kubernetes hub with assisted-service, Hive and the bare-metal operator)")
	fl.StringVar(&f.kubeconfig, "kubeconfig", "", "with --engine hub: kubeconfig of the hub (default $KUBECONFIG or ~/.kube/config; in a pod, its service account)")
	fl.StringVar(&f.kubeContext, "context", "", "with --engine hub: kubeconfig context to use (default its current context)")
	fl.Float32Var(&f.kubeQPS, "kube-qps", hub.DefaultQPS, "with --engine hub: requests per second to the hub's API server, on average")
	fl.IntVar(&f.kubeBurst, "kube-burst", hub.DefaultBurst, "with --engine hub: requests to the hub's API server at once")
	fl.StringVar(&f.instance, "instance", hub.DefaultInstance, "with --engine hub: the name of this siteops on the hub (label "+hub.LabelInstance+"); it sees and deletes only its own objects: give each fleet repository that shares a hub its own")
	fl.BoolVar(&f.forceConflicts, "force-conflicts", false, "with --engine hub: take over fields another field manager set instead of reporting the conflict")
}

// openEngine starts the engine the flags name.
func openEngine(ctx context.Context, f *runFlags, speed float64, approve sim.ApproveMode, log *slog.Logger) (engine.Engine, error) {
	bounds := engine.Bounds{StuckAfter: offIfZero(f.stuckAfter), NoProgressAfter: offIfZero(f.noProgress), SettleAfter: offIfZero(f.settleAfter)}
	switch f.eng.engine {
	case engineSim:
		return sim.New(ctx, sim.Options{StateDir: filepath.Join(f.stateDir, "engine"), Speed: speed, Approve: approve, Logger: log, Bounds: bounds})
	case engineHub:
		cfg, err := hubConfig(&f.eng)
		if err != nil {
			return nil, err
		}
		log.Info("hub engine", "server", cfg.Host, "qps", f.eng.kubeQPS, "burst", f.eng.kubeBurst, "force-conflicts", f.eng.forceConflicts)
		return hub.New(ctx, cfg,
			hub.WithRateLimit(f.eng.kubeQPS, f.eng.kubeBurst),
			hub.WithForceConflicts(f.eng.forceConflicts),
			hub.WithBounds(bounds),
			hub.WithInstance(f.eng.instance),
			hub.WithLogger(log))
	}
	return nil, usageError("--engine %q: use %s or %s", f.eng.engine, engineSim, engineHub)
}

// hubConfig reads --kubeconfig and --context; without them the default
// kubeconfig, or in a pod its service account.
func hubConfig(f *engineFlags) (*rest.Config, error) {
	return kubeConfig(f.kubeconfig, f.kubeContext, "--engine hub")
}

// kubeConfig loads a kubeconfig (default $KUBECONFIG or ~/.kube/config,
// in a pod its service account); who names the command in the error.
func kubeConfig(path, context, who string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context}).ClientConfig()
	if err != nil {
		return nil, usageError("%s: no hub configuration: %v; give --kubeconfig (and --context), or run in a pod with a service account", who, err)
	}
	return cfg, nil
}

// checkEngineFlags refuses hub flags with the simulated engine.
func checkEngineFlags(f *engineFlags, changed func(string) bool) error {
	if f.engine == engineHub {
		if f.kubeQPS <= 0 || f.kubeBurst <= 0 {
			return fmt.Errorf("--kube-qps and --kube-burst must be positive")
		}
		return nil
	}
	for _, name := range []string{"kubeconfig", "context", "kube-qps", "kube-burst", "force-conflicts", "instance"} {
		if changed(name) {
			return fmt.Errorf("--%s goes with --engine hub", name)
		}
	}
	return nil
}
