// Package examples bundles the example fleet into the siteops binary:
// `siteops run` with no source runs it, so that the first command of the
// README installs something without any setup.
package examples

import "embed"

// FS holds fleet/ (the example fleet repository, in the ZTP layout) and
// extra-manifests/ (the default extra-manifest set).
//
//go:embed fleet extra-manifests
var FS embed.FS

// The directories of FS.
const (
	FleetDir          = "fleet"
	ExtraManifestsDir = "extra-manifests"
)
