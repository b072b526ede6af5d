// Package hub is the engine that installs sites through a real hub: a
// Kubernetes cluster running Hive, assisted-service and the bare-metal
// operator. It implements engine.Engine with client-go.
//
// # Apply
//
// Every object of a site's bundle is sent with server-side apply, field
// manager "siteops", wave by wave in the bundle's sync-wave order: the
// next wave goes only when every object of the previous one was accepted
// and its Namespace is Active. Each object carries the labels
// app.kubernetes.io/managed-by=siteops, siteops.io/instance=<instance>
// (WithInstance: an engine sees only its own instance's objects) and
// siteops.io/site=<site>, and the
// annotation siteops.io/bundle-hash: when every object of a site on the
// hub carries the hash of the bundle in hand, Apply sends no request, even
// from a new process. Objects of the site that leave the bundle are
// deleted in the same step (a node taken out of a site).
//
// siteops never modifies or deletes an object it did not create. An
// object of the bundle that exists without the siteops labels is left
// alone and the site is held back with a message saying so; a Namespace
// made beforehand (to hold the site's Secrets) is used as it is. A
// conflict with another field manager is reported with the manager and
// the fields, and is not forced unless WithForceConflicts.
//
// Before the first wave that is not only Namespaces, the prerequisites
// the bundle names are looked for: the ClusterImageSet of the
// AgentClusterInstall, the pull secret of the ClusterDeployment and
// InfraEnv, the BMC Secret of each BareMetalHost. A missing one holds the
// site back with its name and namespace; siteops never creates Secrets
// from repository content (a bundle with a Secret is refused). A site
// held back is applied again every retry interval.
//
// # Status
//
// Shared informers watch the kinds siteops applies, filtered by the
// siteops label, Agents by their InfraEnv label and ClusterImageSets; no
// site is polled. Status reads the ClusterDeployment, the
// AgentClusterInstall (state, progress, validations, conditions,
// metadata), the Agents (state, stage, progress, validations, approval),
// the BareMetalHosts (provisioning state, errors) and the InfraEnvs (ISO
// URL, conditions) from the caches into engine.SiteStatus. Subscribe
// names a site on every change of its objects.
//
// # Delete
//
// Delete tears a site down in the upstream order: the ClusterDeployment
// first (its finalizer deletes the AgentClusterInstall, whose finalizer
// deletes or unbinds the Agents), then the AgentClusterInstall if still
// there, ManagedCluster and KlusterletAddonConfig, BareMetalHosts, the
// InfraEnvs, NMStateConfigs and the rest, the Namespace last. Each step
// waits for its objects to go; one still there after the delete timeout
// is reported with its finalizers, the controller that owns them and how
// to remove them by hand. siteops never removes a finalizer itself, and
// never touches the installed cluster.
//
// # Load on the hub
//
// Requests are rate-limited on the client (WithRateLimit), sites are
// applied a bounded number at a time (WithConcurrency), and a request is
// retried with backoff on 429, 5xx, timeouts and refused or broken
// connections (an API server restarting), for up to WithRetryFor.
package hub
