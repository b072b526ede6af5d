// Package hubsim plays the hub's controllers against a real Kubernetes API
// server: assisted-service (its ClusterDeployments, AgentClusterInstall,
// InfraEnv and Agent controllers), the bare-metal operator, the bare-metal
// agent controller (BMAC) and Hive. It watches ClusterDeployments,
// AgentClusterInstalls, InfraEnvs, NMStateConfigs, BareMetalHosts and
// ClusterImageSets, whoever applied them (siteops's hub engine, Argo CD,
// kubectl), drives engine/sim's state machines with what it sees, and
// writes back what the controllers write: Agents with their labels and
// status, the status of every object, the ClusterDeployment's
// spec.installed and cluster metadata, the admin kubeconfig and password
// Secrets (placeholder content), and the upstream finalizers, released in
// the upstream order when a site is deleted.
//
// # Using it
//
//	s, err := hubsim.New(ctx, restConfig, hubsim.WithSpeed(sim.SpeedMax))
//	err = s.Run(ctx) // until ctx is done
//
// Objects are grouped into sites by namespace, as the upstream generators
// render them (one namespace per cluster); the site's name is the
// siteops.io/site label when siteops applied them, else the namespace.
//
// # State
//
// The simulation's state lives in the API server, one ConfigMap per site
// in the simulator's own namespace (DefaultStateNamespace), outside the
// site namespaces so that deleting a site's namespace cannot lose it
// mid-teardown. A simulator restarted (or killed) resumes where its last
// commit left it: no host installs twice.
package hubsim
