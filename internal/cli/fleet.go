package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/siteops/siteops/internal/safefs"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// fleetInput is what a command that reads a fleet starts from: the fleet
// root, opened so that nothing outside it can be read, its path, the
// command's paths inside it, and the renderer options for the default
// extra-manifest set.
type fleetInput struct {
	root       *safefs.Root
	dir        string
	paths      []string
	renderOpts []render.Option
}

// fleetRoot says where the fleet root is: Dir, and whether the user gave
// it (--root) or it is the default, the working directory.
type fleetRoot struct {
	Dir   string
	Given bool
}

// openFleet opens the fleet root and turns args (the root when there are
// none) into paths inside it; manifestsDir, when set, is read as the
// default extra-manifest set. Without --root, paths that are not under
// the working directory are their own root: a directory is, a file's
// directory is, several paths' deepest common directory is. Mistakes in
// them are usage errors. The caller closes the root.
func openFleet(root fleetRoot, args []string, manifestsDir string) (*fleetInput, error) {
	if root.Given {
		if err := checkRootDir(root.Dir); err != nil {
			return nil, err
		}
	}
	if len(args) == 0 {
		args = []string{root.Dir}
	}
	for _, a := range args {
		if err := checkArg(a, root); err != nil {
			return nil, err
		}
	}
	if !root.Given {
		if dir, ok := ownRoot(root.Dir, args); ok {
			root.Dir = dir
		}
	}
	paths, err := rootRelative(root.Dir, args)
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
	r, err := safefs.OpenRoot(root.Dir)
	if err != nil {
		return nil, usageError("--root %s: %v", root.Dir, err)
	}
	return &fleetInput{root: r, dir: root.Dir, paths: paths, renderOpts: opts}, nil
}

// checkRootDir refuses a --root that is not a directory.
func checkRootDir(dir string) error {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usageError("--root %s does not exist: give the directory that holds the fleet (paths inside sites resolve against it)", dir)
	case err != nil:
		return usageError("--root %s: %v", dir, err)
	case !info.IsDir():
		return usageError("--root %s is a file: give the directory that holds the fleet, and the file as a path", dir)
	}
	return nil
}

// checkArg refuses a path on the command line that does not exist, with
// a hint that fits: paths on the command line are relative to the working
// directory, not to --root.
func checkArg(arg string, root fleetRoot) error {
	_, err := os.Stat(arg)
	if err == nil {
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return usageError("%s: %v", arg, err)
	}
	hint := "check the path"
	if wd, err := os.Getwd(); err == nil && !filepath.IsAbs(arg) {
		hint = "paths on the command line are relative to the working directory " + wd
	}
	if root.Given && !filepath.IsAbs(arg) {
		if _, err := os.Stat(filepath.Join(root.Dir, arg)); err == nil {
			hint += "; did you mean " + filepath.Join(root.Dir, arg) + "?"
		}
	}
	return usageError("%s does not exist: %s", arg, hint)
}

// ownRoot is the root of paths that are not all under def: the deepest
// directory that holds them all (a file counts as its directory).
func ownRoot(def string, args []string) (string, bool) {
	absDef, err := filepath.Abs(def)
	if err != nil {
		return "", false
	}
	inside := true
	var dirs []string
	for _, a := range args {
		abs, err := filepath.Abs(a)
		if err != nil {
			return "", false
		}
		if rel, err := filepath.Rel(absDef, abs); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			inside = false
		}
		if info, err := os.Stat(abs); err == nil && !info.IsDir() {
			abs = filepath.Dir(abs)
		}
		dirs = append(dirs, abs)
	}
	if inside {
		return "", false
	}
	common := dirs[0]
	for _, d := range dirs[1:] {
		for common != d && !strings.HasPrefix(d, common+string(filepath.Separator)) {
			parent := filepath.Dir(common)
			if parent == common {
				break
			}
			common = parent
		}
	}
	return common, true
}

// noSiteError is the error of a command that found no site under its
// paths: a CI job pointed at the wrong folder must not pass.
func noSiteError(in *fleetInput) error {
	where := strings.Join(in.paths, ", ")
	return &exitError{code: ExitFailure, err: fmt.Errorf("no site found under %s (fleet root %s): give the folder or file that holds the SiteConfigs or ClusterInstances, or the ZTP kustomization folder that lists them", where, in.dir)}
}
