package gittest

import (
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// gitCore is where git keeps git-daemon and git-http-backend.
const gitCore = "/usr/lib/git-core"

// Server is a Git server on loopback serving the bare repositories under
// Dir.
type Server struct {
	dir    string // bare repositories
	scheme string // "git" or "http"
	port   int
	auth   func(*http.Request) bool // http only; nil means no check

	sshConfig *ssh.ServerConfig // ssh only
	hostKey   ssh.PublicKey

	mu      sync.Mutex
	stop    func() // stops what Start started; nil while stopped
	tb      testing.TB
	running bool
}

// Option configures a Server.
type Option func(*Server)

// WithBasicAuth makes an http server accept only requests carrying this
// user and password.
func WithBasicAuth(user, password string) Option {
	return func(s *Server) {
		s.auth = func(r *http.Request) bool {
			u, p, ok := r.BasicAuth()
			return ok && u == user && p == password
		}
	}
}

// WithBearerToken makes an http server accept only requests carrying
// "Authorization: Bearer token".
func WithBearerToken(token string) Option {
	return func(s *Server) {
		s.auth = func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer "+token }
	}
}

// StartDaemon starts `git daemon` with pushes enabled; URLs are
// git://127.0.0.1:PORT/NAME.
func StartDaemon(t testing.TB, opts ...Option) *Server {
	return start(t, "git", opts)
}

// StartHTTP starts `git http-backend` behind net/http/cgi; URLs are
// http://127.0.0.1:PORT/NAME.
func StartHTTP(t testing.TB, opts ...Option) *Server {
	return start(t, "http", opts)
}

func start(t testing.TB, scheme string, opts []Option) *Server {
	t.Helper()
	s := &Server{dir: t.TempDir(), scheme: scheme, tb: t}
	for _, opt := range opts {
		opt(s)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.port = l.Addr().(*net.TCPAddr).Port
	if scheme == "http" {
		s.serveHTTP(l)
	} else {
		l.Close()
		s.Start()
	}
	t.Cleanup(s.Stop)
	return s
}

// Dir is the directory holding the bare repositories.
func (s *Server) Dir() string { return s.dir }

// URL is the address of the repository name.
func (s *Server) URL(name string) string {
	if s.scheme == "ssh" {
		return fmt.Sprintf("ssh://git@127.0.0.1:%d/%s", s.port, name)
	}
	return fmt.Sprintf("%s://127.0.0.1:%d/%s", s.scheme, s.port, name)
}

// Start starts the server again on its port after Stop; it returns once
// the port accepts connections.
func (s *Server) Start() {
	s.tb.Helper()
	s.mu.Lock()
	running := s.running
	s.mu.Unlock()
	if running {
		return
	}
	addr := "127.0.0.1:" + strconv.Itoa(s.port)
	if s.scheme != "git" {
		var l net.Listener
		s.poll(func() (err error) { l, err = net.Listen("tcp", addr); return err })
		if s.scheme == "ssh" {
			s.serveSSH(l)
		} else {
			s.serveHTTP(l)
		}
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cmd := exec.Command(filepath.Join(gitCore, "git-daemon"),
		"--reuseaddr", "--listen=127.0.0.1", "--port="+strconv.Itoa(s.port),
		"--base-path="+s.dir, "--export-all", "--enable=receive-pack", "--informative-errors", s.dir)
	cmd.Env = gitEnv(s.dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its children die with it
	if err := cmd.Start(); err != nil {
		s.tb.Fatalf("start git daemon: %v", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	s.stop = func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	s.running = true
	s.poll(func() error {
		select {
		case <-done:
			s.tb.Fatalf("git daemon on port %d exited at start", s.port)
		default:
		}
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err
	})
}

// serveHTTP serves git-http-backend on l.
func (s *Server) serveHTTP(l net.Listener) {
	s.mu.Lock()
	defer s.mu.Unlock()
	backend := &cgi.Handler{
		Path:       filepath.Join(gitCore, "git-http-backend"),
		Env:        append(gitVars(s.dir), "GIT_PROJECT_ROOT="+s.dir, "GIT_HTTP_EXPORT_ALL=1"),
		InheritEnv: []string{"PATH"},
	}
	h := http.Handler(backend)
	if s.auth != nil {
		auth := s.auth
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !auth(r) {
				w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
				http.Error(w, "authentication required", http.StatusUnauthorized)
				return
			}
			backend.ServeHTTP(w, r)
		})
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(l)
	s.stop = func() { srv.Close() }
	s.running = true
}

// Stop stops the server; connections to its URLs are refused until
// Start.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running {
		s.stop()
		s.running = false
	}
}

// poll retries f until it succeeds, for up to 10 s.
func (s *Server) poll(f func() error) {
	s.tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.tb.Fatalf("server on port %d: %v", s.port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
