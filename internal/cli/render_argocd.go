package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// The environment Argo CD gives a config-management plugin's generate
// command (github.com/argoproj/argo-cd reposerver/repository/repository.go
// newEnv and getPluginParamEnvs; pkg/apis/application/v1alpha1/types.go
// ApplicationSourcePluginParameters.Environ): the Application's source
// path, its plugin env prefixed ARGOCD_ENV_, and its parameters as
// PARAM_<NAME> (upper case, other characters as _). The parameter names
// are those examples/argocd/plugin.yaml announces.
const (
	envArgoSourcePath      = "ARGOCD_APP_SOURCE_PATH"
	paramExtraManifestsDir = "PARAM_EXTRA_MANIFESTS_DIR"
	paramStrict            = "PARAM_STRICT"
	envExtraManifestsDir   = "ARGOCD_ENV_EXTRA_MANIFESTS_DIR"
	envStrict              = "ARGOCD_ENV_STRICT"
)

// argocdPluginFlags sets the render flags from Argo CD's plugin
// environment, for `siteops render --argocd-plugin` in plugin.yaml. The
// command runs in the Application's directory inside a copy of the whole
// repository: the fleet root is the repository, found by going up the
// source path, and the Application's directory is the path rendered. A
// parameter wins over the plugin env of the same meaning.
func argocdPluginFlags(f *renderFlags, args []string, getenv func(string) string) ([]string, error) {
	if len(args) > 0 {
		return nil, usageError("--argocd-plugin renders the Application's directory and takes no paths (got %q)", args[0])
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	src := path.Clean(filepath.ToSlash(getenv(envArgoSourcePath)))
	if src == "" || src == "." || src == "/" {
		src = "."
	}
	if path.IsAbs(src) || src == ".." || strings.HasPrefix(src, "../") {
		return nil, usageError("%s=%q is not a path inside the repository", envArgoSourcePath, getenv(envArgoSourcePath))
	}
	root := wd
	if src != "." {
		suffix := string(filepath.Separator) + filepath.FromSlash(src)
		if !strings.HasSuffix(wd, suffix) {
			return nil, usageError("the working directory %s does not end in %s=%s: run from the Application's directory", wd, envArgoSourcePath, src)
		}
		root = strings.TrimSuffix(wd, suffix)
	}
	f.root = root
	if dir := firstSet(getenv, paramExtraManifestsDir, envExtraManifestsDir); dir != "" {
		rel, err := sites.RootPath(dir)
		if err != nil {
			return nil, usageError("extra-manifests-dir %q: %v; give a directory relative to the repository root", dir, err)
		}
		dirPath := filepath.Join(root, filepath.FromSlash(rel))
		// A symlink in the repository must not lead the read outside it.
		real, err := filepath.EvalSymlinks(dirPath)
		realRoot, rerr := filepath.EvalSymlinks(root)
		if err != nil || rerr != nil || (real != realRoot && !strings.HasPrefix(real, realRoot+string(filepath.Separator))) {
			return nil, usageError("extra-manifests-dir %q is not a directory inside the repository", dir)
		}
		f.manifestsDir = dirPath
	}
	switch v := firstSet(getenv, paramStrict, envStrict); v {
	case "", "false":
	case "true":
		f.strict = true
	default:
		return nil, usageError("strict %q: write true or false", v)
	}
	return []string{wd}, nil
}

// firstSet returns the value of the first variable set and not empty.
func firstSet(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// jsonStreamEncoder writes objects as JSON, one a line, with no list
// around them: what Argo CD splits fastest (gitops-engine
// pkg/utils/kube SplitYAMLToString reads a JSON stream with a JSON
// decoder, where YAML goes through a YAML-to-JSON conversion per
// document).
type jsonStreamEncoder struct{}

func (jsonStreamEncoder) Header() []byte { return nil }
func (jsonStreamEncoder) Footer() []byte { return nil }
func (jsonStreamEncoder) Ext() string    { return ".json" }

func (jsonStreamEncoder) Encode(dst []byte, b *render.Bundle) ([]byte, error) {
	for _, o := range b.Objects {
		raw, err := json.Marshal(o.Content)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", o.Ref(), err)
		}
		dst = append(append(dst, raw...), '\n')
	}
	return dst, nil
}
