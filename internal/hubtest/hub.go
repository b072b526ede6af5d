package hubtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// The users the hub's token file declares.
const (
	// AdminUser is in system:masters: Config authenticates as it.
	AdminUser = "siteops-admin"
	// PlainUser belongs to no group: UserConfig authenticates as it, so
	// a test grants it exactly the roles it wants to prove sufficient.
	PlainUser = "siteops"
)

// Timeouts of the hub's life.
const (
	// DefaultLifetime bounds every process of a hub: it is killed after
	// this long even if nobody calls Stop.
	DefaultLifetime = 2 * time.Hour
	// readyTimeout bounds the wait for /readyz (about 20 s on two cores).
	readyTimeout = 3 * time.Minute
	// stopGrace is how long a process has to exit after SIGTERM.
	stopGrace = 10 * time.Second
)

// Hub is etcd and kube-apiserver running on loopback.
type Hub struct {
	dir             string
	etcdBin, apiBin string
	etcdURL         string
	etcdPeerURL     string
	apiPort         int
	pki             *pki
	adminToken      string
	plainToken      string
	kubeconfig      string

	// ownDir is set when Start made dir, so Stop removes it.
	ownDir bool

	life   context.Context
	cancel context.CancelFunc

	mu   sync.Mutex
	etcd *process
	api  *process
}

// An Option configures Start.
type Option func(*options)

type options struct {
	lifetime time.Duration
	dir      string
	buildLog io.Writer
}

// WithLifetime changes DefaultLifetime.
func WithLifetime(d time.Duration) Option { return func(o *options) { o.lifetime = d } }

// WithDir keeps the hub's files (data, certificates, logs, kubeconfig) in
// dir instead of a new temporary directory; Stop leaves dir in place.
func WithDir(dir string) Option { return func(o *options) { o.dir = dir } }

// WithBuildLog receives the go command's output when a binary is built.
func WithBuildLog(w io.Writer) Option { return func(o *options) { o.buildLog = w } }

// Start builds the binaries if needed, starts etcd and kube-apiserver,
// waits until the API server is ready and installs the CRDs.
func Start(ctx context.Context, opts ...Option) (_ *Hub, err error) {
	o := options{lifetime: DefaultLifetime}
	for _, opt := range opts {
		opt(&o)
	}
	etcdBin, apiBin, err := Build(ctx, o.buildLog)
	if err != nil {
		return nil, err
	}
	dir, keep := o.dir, o.dir != ""
	if !keep {
		if dir, err = os.MkdirTemp("", "siteops-hub-"); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	life, cancel := context.WithTimeout(context.Background(), o.lifetime)
	h := &Hub{dir: dir, ownDir: !keep, etcdBin: etcdBin, apiBin: apiBin, life: life, cancel: cancel}
	defer func() {
		if err != nil {
			h.Stop()
		}
	}()
	if h.pki, err = newPKI(dir); err != nil {
		return nil, fmt.Errorf("hub certificates: %w", err)
	}
	h.adminToken, h.plainToken = randomToken(), randomToken()
	tokens := fmt.Sprintf("%s,%s,%s,\"system:masters\"\n%s,%s,%s\n",
		h.adminToken, AdminUser, AdminUser, h.plainToken, PlainUser, PlainUser)
	if err := os.WriteFile(filepath.Join(dir, "tokens.csv"), []byte(tokens), 0o600); err != nil {
		return nil, err
	}
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	h.etcdURL = "http://127.0.0.1:" + strconv.Itoa(ports[0])
	h.etcdPeerURL = "http://127.0.0.1:" + strconv.Itoa(ports[1])
	h.apiPort = ports[2]
	if err := h.startEtcd(ctx); err != nil {
		return nil, err
	}
	if err := h.StartAPIServer(ctx); err != nil {
		return nil, err
	}
	if h.kubeconfig, err = h.writeKubeconfig(); err != nil {
		return nil, err
	}
	if err := h.installCRDs(ctx); err != nil {
		return nil, err
	}
	return h, nil
}

// Config is a client configuration for the admin user (system:masters).
func (h *Hub) Config() *rest.Config { return h.config(h.adminToken) }

// UserConfig is a client configuration for PlainUser, who may do nothing
// until a test binds roles to it.
func (h *Hub) UserConfig() *rest.Config { return h.config(h.plainToken) }

func (h *Hub) config(token string) *rest.Config {
	return &rest.Config{
		Host:            h.URL(),
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: h.pki.caPEM},
		QPS:             1000,
		Burst:           2000,
		// The upstream CRDs use formats (ip, ipv6) the API server
		// does not know and warns about on every request.
		WarningHandler: rest.NoWarnings{},
	}
}

// URL is the API server's address.
func (h *Hub) URL() string { return "https://127.0.0.1:" + strconv.Itoa(h.apiPort) }

// Kubeconfig is the path of a kubeconfig file for the admin user.
func (h *Hub) Kubeconfig() string { return h.kubeconfig }

// Dir holds the hub's data, certificates and the servers' logs
// (etcd.log, kube-apiserver.log).
func (h *Hub) Dir() string { return h.dir }

// Stop kills both servers and removes the hub's directory (unless it was
// given with WithDir).
func (h *Hub) Stop() {
	h.mu.Lock()
	api, etcd := h.api, h.etcd
	h.api, h.etcd = nil, nil
	h.mu.Unlock()
	api.stop()
	etcd.stop()
	h.cancel()
	if h.ownDir {
		_ = os.RemoveAll(h.dir)
	}
}

// StopAPIServer stops kube-apiserver (SIGTERM, then SIGKILL after a
// grace period); etcd keeps the data. Requests fail with connection
// refused until StartAPIServer.
func (h *Hub) StopAPIServer() {
	h.mu.Lock()
	api := h.api
	h.api = nil
	h.mu.Unlock()
	api.stop()
}

// StartAPIServer starts kube-apiserver on the hub's port and waits until
// it is ready.
func (h *Hub) StartAPIServer(ctx context.Context) error {
	args := []string{
		"--etcd-servers=" + h.etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(h.apiPort),
		"--tls-cert-file=" + h.pki.certFile,
		"--tls-private-key-file=" + h.pki.keyFile,
		"--cert-dir=" + filepath.Join(h.dir, "certs"),
		"--token-auth-file=" + filepath.Join(h.dir, "tokens.csv"),
		"--authorization-mode=RBAC",
		"--service-account-key-file=" + h.pki.saPubFile,
		"--service-account-signing-key-file=" + h.pki.saKeyFile,
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-cluster-ip-range=10.0.0.0/24",
	}
	p, err := h.start("kube-apiserver", h.apiBin, args)
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.api = p
	h.mu.Unlock()
	if err := h.waitReady(ctx, p); err != nil {
		return err
	}
	return nil
}

// RestartAPIServer stops kube-apiserver and starts it again on the same
// port.
func (h *Hub) RestartAPIServer(ctx context.Context) error {
	h.StopAPIServer()
	return h.StartAPIServer(ctx)
}

func (h *Hub) startEtcd(ctx context.Context) error {
	args := []string{
		"--name=hub",
		"--data-dir=" + filepath.Join(h.dir, "etcd"),
		"--listen-client-urls=" + h.etcdURL,
		"--advertise-client-urls=" + h.etcdURL,
		"--listen-peer-urls=" + h.etcdPeerURL,
		"--initial-advertise-peer-urls=" + h.etcdPeerURL,
		"--initial-cluster=hub=" + h.etcdPeerURL,
		"--log-level=warn",
		// A test hub's data is thrown away; fsync only slows it down.
		"--unsafe-no-fsync",
	}
	p, err := h.start("etcd", h.etcdBin, args)
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.etcd = p
	h.mu.Unlock()
	return poll(ctx, readyTimeout, p, "etcd", func(c context.Context) error {
		req, _ := http.NewRequestWithContext(c, http.MethodGet, h.etcdURL+"/health", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"health":"true"`)) {
			return fmt.Errorf("etcd /health: %s %s", resp.Status, body)
		}
		return nil
	})
}

func (h *Hub) waitReady(ctx context.Context, p *process) error {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(h.pki.caPEM)
	client := &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
	}
	defer client.CloseIdleConnections()
	return poll(ctx, readyTimeout, p, "kube-apiserver", func(c context.Context) error {
		req, _ := http.NewRequestWithContext(c, http.MethodGet, h.URL()+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+h.adminToken)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("/readyz: %s %s", resp.Status, body)
		}
		return nil
	})
}

// poll calls check until it succeeds, the process exits, or timeout.
func poll(ctx context.Context, timeout time.Duration, p *process, name string, check func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		c, cc := context.WithTimeout(ctx, 5*time.Second)
		last = check(c)
		cc()
		if last == nil {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited before it was ready: %v; last lines of %s:\n%s", name, p.err, p.logPath, p.logTail())
		case <-ctx.Done():
			return fmt.Errorf("%s not ready after %s: %v; last lines of %s:\n%s", name, timeout, last, p.logPath, p.logTail())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (h *Hub) writeKubeconfig() (string, error) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["hub"] = &clientcmdapi.Cluster{Server: h.URL(), CertificateAuthorityData: h.pki.caPEM}
	cfg.AuthInfos[AdminUser] = &clientcmdapi.AuthInfo{Token: h.adminToken}
	cfg.Contexts["hub"] = &clientcmdapi.Context{Cluster: "hub", AuthInfo: AdminUser}
	cfg.CurrentContext = "hub"
	path := filepath.Join(h.dir, "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return "", fmt.Errorf("write kubeconfig: %w", err)
	}
	return path, nil
}

// process is one running server.
type process struct {
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
	err     error
}

func (h *Hub) start(name, bin string, args []string) (*process, error) {
	logPath := filepath.Join(h.dir, name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(h.life, bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// The server dies with the test binary even if it is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	cmd.WaitDelay = stopGrace
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// stop sends SIGTERM and kills the process if it has not exited after
// stopGrace. A nil process is already stopped.
func (p *process) stop() {
	if p == nil {
		return
	}
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(stopGrace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

func (p *process) logTail() string {
	data, err := os.ReadFile(p.logPath)
	if err != nil {
		return err.Error()
	}
	return string(tail(data, 4096))
}

func randomToken() string {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// freePorts asks the kernel for n free loopback ports.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, errors.Join(errors.New("free port"), err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
