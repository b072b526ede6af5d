package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/siteops/siteops/engine/hubsim"
)

type hubSimFlags struct {
	kubeconfig, kubeContext string
	speed                   string
	selector                string
	stateNamespace          string
	qps                     float32
	burst                   int
	workers                 int
	finalizeNamespaces      bool
	logFormat, logLevel     string
}

func newHubSimCommand(stdout, stderr io.Writer) *cobra.Command {
	f := &hubSimFlags{}
	cmd := &cobra.Command{
		Use:   "hub-sim",
		Short: "Play assisted-service, the bare-metal operator, BMAC and Hive on a Kubernetes API server",
		Long: `hub-sim plays the controllers of a hub on any Kubernetes API server that
serves the upstream CRDs: it watches ClusterDeployments,
AgentClusterInstalls, InfraEnvs, NMStateConfigs, BareMetalHosts and
ClusterImageSets, whoever applied them (siteops run --engine hub, Argo CD,
kubectl), installs them on the simulation's virtual clock, and writes back
what the controllers write: Agents, conditions, progress, the
ClusterDeployment's installed flag and metadata, placeholder admin Secrets
and the upstream finalizers. Its state lives in the API server (namespace
--state-namespace); a restart resumes where it was. It runs until
interrupted. docs/hub-sim.md has the details.`,
		Example: `  make hub   # a local API server with the CRDs, kubeconfig in .hub/kubeconfig
  siteops hub-sim --kubeconfig .hub/kubeconfig --speed max --finalize-namespaces &
  siteops run --engine hub --kubeconfig .hub/kubeconfig --dir examples/fleet --until-installed`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runHubSim(cmd.Context(), f, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig of the hub (default $KUBECONFIG or ~/.kube/config; in a pod, its service account)")
	fl.StringVar(&f.kubeContext, "context", "", "kubeconfig context to use (default its current context)")
	fl.StringVar(&f.speed, "speed", "60", "virtual seconds of installation per real second, or max")
	fl.StringVar(&f.selector, "namespace-selector", "", "only the sites of namespaces whose labels match this selector (kubectl syntax: env=lab,!skip)")
	fl.StringVar(&f.stateNamespace, "state-namespace", hubsim.DefaultStateNamespace, "namespace of the simulation's state (one ConfigMap per site)")
	fl.Float32Var(&f.qps, "kube-qps", hubsim.DefaultQPS, "requests per second to the API server, on average")
	fl.IntVar(&f.burst, "kube-burst", hubsim.DefaultBurst, "requests to the API server at once")
	fl.IntVar(&f.workers, "workers", hubsim.DefaultWorkers, "sites read or written at once")
	fl.BoolVar(&f.finalizeNamespaces, "finalize-namespaces", false, "also play the namespace controller for the namespaces of deleted sites (a bare API server has no kube-controller-manager)")
	fl.StringVar(&f.logFormat, "log-format", "text", "log format: text or json")
	fl.StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	return cmd
}

func runHubSim(ctx context.Context, f *hubSimFlags, stderr io.Writer) error {
	log, err := newLogger(f.logFormat, f.logLevel, stderr)
	if err != nil {
		return usageError("%v", err)
	}
	speed, err := parseSpeed(f.speed)
	if err != nil {
		return usageError("%v", err)
	}
	sel, err := labels.Parse(f.selector)
	if err != nil {
		return usageError("--namespace-selector %q: %v", f.selector, err)
	}
	if f.qps <= 0 || f.burst <= 0 || f.workers <= 0 {
		return usageError("--kube-qps, --kube-burst and --workers must be positive")
	}
	cfg, err := kubeConfig(f.kubeconfig, f.kubeContext, "hub-sim")
	if err != nil {
		return err
	}
	s, err := hubsim.New(ctx, cfg,
		hubsim.WithSpeed(speed),
		hubsim.WithNamespaceSelector(sel),
		hubsim.WithStateNamespace(f.stateNamespace),
		hubsim.WithRateLimit(f.qps, f.burst),
		hubsim.WithWorkers(f.workers),
		hubsim.WithNamespaceFinalizer(f.finalizeNamespaces),
		hubsim.WithLogger(log))
	if err != nil {
		return fmt.Errorf("hub-sim: %w", err)
	}
	log.Info("hub-sim started", "server", cfg.Host, "speed", f.speed, "namespace-selector", sel.String(), "state-namespace", f.stateNamespace)
	err = s.Run(ctx)
	log.Info("hub-sim stopped", "requests", s.Requests())
	return err
}
