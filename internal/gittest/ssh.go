package gittest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// StartSSH starts an SSH server on loopback that runs the real
// git-upload-pack and git-receive-pack for clients holding one of the
// authorized keys; URLs are ssh://git@127.0.0.1:PORT/NAME. The SSH side
// is golang.org/x/crypto/ssh (no sshd is needed); KnownHosts gives the
// line that accepts its host key.
func StartSSH(t testing.TB, authorized ...ssh.PublicKey) *Server {
	t.Helper()
	_, hostPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(hostPriv)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &ssh.ServerConfig{
		PublicKeyCallback: func(_ ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
			for _, a := range authorized {
				if bytes.Equal(a.Marshal(), key.Marshal()) {
					return &ssh.Permissions{}, nil
				}
			}
			return nil, fmt.Errorf("key not authorized")
		},
	}
	cfg.AddHostKey(signer)
	s := &Server{dir: t.TempDir(), scheme: "ssh", tb: t, sshConfig: cfg, hostKey: signer.PublicKey()}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.port = l.Addr().(*net.TCPAddr).Port
	s.serveSSH(l)
	t.Cleanup(s.Stop)
	return s
}

// KnownHosts is the known_hosts line of an SSH server's host key.
func (s *Server) KnownHosts() string {
	return knownhosts.Line([]string{fmt.Sprintf("127.0.0.1:%d", s.port)}, s.hostKey) + "\n"
}

// SSHKey makes an ed25519 key pair: the private key in OpenSSH format in
// a file under dir, and the public key to authorize.
func SSHKey(t testing.TB, dir string) (keyFile string, public ssh.PublicKey) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	keyFile = filepath.Join(dir, "id_ed25519")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	public, err = ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return keyFile, public
}

// serveSSH accepts SSH connections on l until Stop.
func (s *Server) serveSSH(l net.Listener) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var (
		mu    sync.Mutex
		conns = map[net.Conn]bool{}
		wg    sync.WaitGroup
	)
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns[c] = true
			mu.Unlock()
			wg.Go(func() {
				s.sshConn(c)
				mu.Lock()
				delete(conns, c)
				mu.Unlock()
			})
		}
	})
	s.stop = func() {
		l.Close()
		mu.Lock()
		for c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	}
	s.running = true
}

// sshConn serves one connection: sessions that exec git-upload-pack or
// git-receive-pack on a repository under the server's directory.
func (s *Server) sshConn(c net.Conn) {
	defer c.Close()
	_, chans, reqs, err := ssh.NewServerConn(c, s.sshConfig)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			nc.Reject(ssh.UnknownChannelType, "only sessions")
			continue
		}
		ch, chReqs, err := nc.Accept()
		if err != nil {
			return
		}
		go s.sshSession(ch, chReqs)
	}
}

func (s *Server) sshSession(ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer ch.Close()
	for req := range reqs {
		if req.Type != "exec" {
			req.Reply(req.Type == "env", nil)
			continue
		}
		var payload struct{ Command string }
		if err := ssh.Unmarshal(req.Payload, &payload); err != nil {
			req.Reply(false, nil)
			return
		}
		cmd, err := s.gitCommand(payload.Command)
		if err != nil {
			req.Reply(false, nil)
			fmt.Fprintln(ch.Stderr(), err)
			return
		}
		req.Reply(true, nil)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = ch, ch, ch.Stderr()
		status := 0
		if err := cmd.Run(); err != nil {
			status = 1
			if ee, ok := err.(*exec.ExitError); ok {
				status = ee.ExitCode()
			}
		}
		ch.CloseWrite()
		ch.SendRequest("exit-status", false, binary.BigEndian.AppendUint32(nil, uint32(status)))
		return
	}
}

// gitCommand turns "git-upload-pack '/fleet.git'" into the command to
// run.
func (s *Server) gitCommand(line string) (*exec.Cmd, error) {
	name, arg, _ := strings.Cut(line, " ")
	if name != "git-upload-pack" && name != "git-receive-pack" {
		return nil, fmt.Errorf("only git-upload-pack and git-receive-pack run here, not %q", name)
	}
	repo := path.Clean("/" + strings.Trim(arg, "'\""))
	cmd := exec.Command(filepath.Join(gitCore, name), filepath.Join(s.dir, filepath.FromSlash(repo)))
	cmd.Env = gitEnv(s.dir)
	return cmd, nil
}
