package cli

import (
	"os"

	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// fleetInput is what a command that reads a fleet starts from: the fleet
// root, opened so that nothing outside it can be read, the command's paths
// inside it, and the renderer options for the default extra-manifest set.
type fleetInput struct {
	root       *os.Root
	paths      []string
	renderOpts []render.Option
}

// openFleet opens rootDir and turns args (the current directory when there
// are none) into paths inside it; manifestsDir, when set, is read as the
// default extra-manifest set. Mistakes in them are usage errors. The
// caller closes the root.
func openFleet(rootDir string, args []string, manifestsDir string) (*fleetInput, error) {
	if len(args) == 0 {
		args = []string{"."}
	}
	paths, err := rootRelative(rootDir, args)
	if err != nil {
		return nil, usageError("%v", err)
	}
	var opts []render.Option
	if manifestsDir != "" {
		dir, err := sites.ReadManifestDir(os.DirFS(manifestsDir), ".")
		if err != nil {
			return nil, usageError("--extra-manifests-dir %s: %v", manifestsDir, err)
		}
		dir.Path = manifestsDir
		opts = append(opts, render.WithDefaultManifests(dir))
	}
	root, err := os.OpenRoot(rootDir)
	if err != nil {
		return nil, usageError("--root %s: %v", rootDir, err)
	}
	return &fleetInput{root: root, paths: paths, renderOpts: opts}, nil
}
