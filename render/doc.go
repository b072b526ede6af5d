// Package render turns a site into the resources the assisted installer
// consumes, exactly as the upstream ZTP SiteConfig generator does:
// Namespace, AgentClusterInstall, ClusterDeployment, NMStateConfig,
// InfraEnv, BareMetalHost, HostFirmwareSettings, the extra-manifest
// ConfigMap, the v2 site ConfigMap, ManagedCluster and KlusterletAddonConfig.
//
// # Use
//
//	r := render.New(render.WithDefaultManifests(dir))
//	bundle, problems := r.Render(site) // no I/O: the site carries its files
//	enc, _ := render.NewEncoder(render.FormatYAML)
//	render.WriteBundle(os.Stdout, enc, bundle)
//
// A Renderer caches what all sites share (parsed extra manifests and
// templates) and is safe for concurrent use: one per fleet.
//
// # How objects are built
//
// Each kind has a builder using typed Go structs (hive and metal3 types,
// and siteops' own types for the assisted-service and Open Cluster
// Management kinds in apis/). The typed object is converted to
// JSON-compatible content; then, in the generator's order, a crTemplate
// may replace it, and every object gets the same post-processing
// (crAnnotations, the ZTP annotation, ...). The vocabulary (annotations,
// labels, sync waves, kind order) is in vocabulary.go.
//
// Written as YAML by RenderEncoded, or rendered by RenderTyped for a
// reader of a few objects, an object with no crTemplate configured and
// whose content would be its typed form as it is skips the map: the
// post-processing edits the typed object's metadata, and the YAML is
// written from the typed object with the keys the map would drop left out
// (prunes, direct.go). Both forms give the same bytes; Object.Map builds
// the map of such an object when it is read.
//
// # Order
//
// A Bundle's objects are in apply order: sync wave, then kind (Namespace
// and built-in kinds first, then custom resources by name), then
// namespace, then name.
package render
