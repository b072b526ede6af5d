package hubtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// The versions of the servers, and the packages that build them from the
// tool modules under hack/hub (see hack/hub/README.md). A new version is a
// new cache directory, so an old binary is never reused by mistake.
const (
	EtcdVersion          = "v3.6.6"
	KubeAPIServerVersion = "v1.36.3"
)

// binary is one server built from a tool module.
type binary struct {
	name    string
	version string
	// module is the tool module's directory relative to the repository root.
	module string
	pkg    string
}

var (
	etcdBinary          = binary{"etcd", EtcdVersion, "hack/hub/etcd", "go.etcd.io/etcd/server/v3"}
	kubeAPIServerBinary = binary{"kube-apiserver", KubeAPIServerVersion, "hack/hub/kube-apiserver", "k8s.io/kubernetes/cmd/kube-apiserver"}
)

// buildTimeout bounds one cold build; kube-apiserver takes about 4.5
// minutes on two cores, more on a loaded machine.
const buildTimeout = 30 * time.Minute

// CacheDir is where the binaries are kept: $XDG_CACHE_HOME/siteops/hub
// (~/.cache/siteops/hub), or $SITEOPS_HUB_CACHE when set.
func CacheDir() (string, error) {
	if d := os.Getenv("SITEOPS_HUB_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("hub cache directory: %w (set SITEOPS_HUB_CACHE)", err)
	}
	return filepath.Join(d, "siteops", "hub"), nil
}

// path is where the binary is cached: <cache>/<name>-<version>/<name>.
func (b binary) path(cache string) string {
	return filepath.Join(cache, b.name+"-"+b.version, b.name)
}

// Build builds etcd and kube-apiserver into the cache unless they are
// there already, and returns their paths. Concurrent callers (test
// binaries of several packages) take a file lock, so each is built once.
// log, when not nil, receives the go command's output.
func Build(ctx context.Context, log io.Writer) (etcd, apiserver string, err error) {
	cache, err := CacheDir()
	if err != nil {
		return "", "", err
	}
	root, err := RepoRoot()
	if err != nil {
		return "", "", err
	}
	paths := make([]string, 0, 2)
	for _, b := range []binary{etcdBinary, kubeAPIServerBinary} {
		p, err := b.build(ctx, cache, root, log)
		if err != nil {
			return "", "", err
		}
		paths = append(paths, p)
	}
	return paths[0], paths[1], nil
}

func (b binary) build(ctx context.Context, cache, root string, w io.Writer) (string, error) {
	out := b.path(cache)
	if isExecutable(out) {
		return out, nil
	}
	dir := filepath.Dir(out)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("build %s %s: %w", b.name, b.version, err)
	}
	unlock, err := lockFile(filepath.Join(dir, ".lock"))
	if err != nil {
		return "", fmt.Errorf("build %s %s: %w", b.name, b.version, err)
	}
	defer unlock()
	if isExecutable(out) { // built by another process while we waited
		return out, nil
	}
	ctx, cancel := context.WithTimeout(ctx, buildTimeout)
	defer cancel()
	tmp := out + ".tmp"
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", tmp, b.pkg)
	cmd.Dir = filepath.Join(root, b.module)
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-buildvcs=false")
	var log bytes.Buffer
	output := io.Writer(&log)
	if w != nil {
		output = io.MultiWriter(&log, w)
	}
	cmd.Stdout, cmd.Stderr = output, output
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build %s %s in %s (go build %s): %w; output:\n%s", b.name, b.version, b.module, b.pkg, err, tail(log.Bytes(), 4096))
	}
	if err := os.Rename(tmp, out); err != nil {
		return "", fmt.Errorf("build %s %s: %w", b.name, b.version, err)
	}
	fmt.Fprintf(output, "built %s %s in %s\n", b.name, b.version, time.Since(start).Round(time.Second))
	return out, nil
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// lockFile takes an exclusive flock on path and returns its release.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// RepoRoot finds the siteops repository from the working directory (a
// test runs in its package's directory): the nearest parent holding
// hack/hub/kube-apiserver/go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, kubeAPIServerBinary.module, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("hub: run inside the siteops repository: no parent directory holds hack/hub/kube-apiserver/go.mod")
		}
		dir = parent
	}
}

// tail is the last n bytes of b.
func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
