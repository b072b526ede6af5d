package gittest

import (
	"maps"
	"path/filepath"
	"strings"
	"testing"
)

// clone clones url with the git command line and reports its error
// output.
func clone(t *testing.T, url string, args ...string) (dir string, err error) {
	dir = filepath.Join(t.TempDir(), "clone")
	out, err := git(t.TempDir(), nil, append(append([]string{}, args...), "clone", "-q", url, dir)...)
	if err != nil {
		return dir, &cloneError{out}
	}
	return dir, nil
}

type cloneError struct{ out string }

func (e *cloneError) Error() string { return e.out }

func TestServers(t *testing.T) {
	tests := []struct {
		name, scheme string
		start        func(testing.TB, ...Option) *Server
	}{
		{"daemon", "git://", StartDaemon},
		{"http", "http://", StartHTTP},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := tt.start(t)
			url := srv.SeedFiles(t, "fleet.git", map[string]string{"sites/a.yaml": "a\n", "README.md": "fleet\n"})
			if !strings.HasPrefix(url, tt.scheme) || !strings.HasSuffix(url, "/fleet.git") {
				t.Errorf("URL = %q", url)
			}

			dir, err := clone(t, url)
			if err != nil {
				t.Fatalf("clone: %v", err)
			}
			WriteFiles(t, dir, map[string]string{"sites/b.yaml": "b\n"})
			Git(t, dir, "add", "-A")
			Git(t, dir, "commit", "-q", "-m", "add b")
			Git(t, dir, "push", "-q", "origin", "main")
			pushed := Git(t, dir, "rev-parse", "HEAD")
			if got := srv.Head(t, "fleet.git", "main"); got != pushed {
				t.Fatalf("Head after push = %q, want %q", got, pushed)
			}

			human := srv.Commit(t, "fleet.git", "main", map[string]string{"sites/a.yaml": Remove, "sites/c.yaml": "c\n"}, "human")
			if got := srv.Head(t, "fleet.git", "main"); got != human {
				t.Fatalf("Head after Commit = %q, want %q", got, human)
			}
			want := map[string]string{"sites/b.yaml": "b\n", "sites/c.yaml": "c\n"}
			if got := srv.Files(t, "fleet.git", "main", "sites"); !maps.Equal(got, want) {
				t.Errorf("Files = %q, want %q", got, want)
			}
			if got := srv.Head(t, "fleet.git", "nope"); got != "" {
				t.Errorf("Head of a missing branch = %q, want empty", got)
			}

			srv.Stop()
			if _, err := clone(t, url); err == nil {
				t.Fatal("clone from a stopped server succeeded")
			}
			srv.Start()
			again, err := clone(t, url)
			if err != nil {
				t.Fatalf("clone after restart: %v", err)
			}
			if got := Git(t, again, "rev-parse", "HEAD"); got != human {
				t.Errorf("HEAD after restart = %q, want %q", got, human)
			}
		})
	}
}

func TestHTTPAuth(t *testing.T) {
	tests := []struct {
		name   string
		opt    Option
		good   []string // git options that authenticate
		urlFor func(url string) string
	}{
		{
			name:   "basic",
			opt:    WithBasicAuth("bot", "s3cret"),
			urlFor: func(u string) string { return strings.Replace(u, "http://", "http://bot:s3cret@", 1) },
		},
		{
			name:   "bearer",
			opt:    WithBearerToken("tok3n"),
			good:   []string{"-c", "http.extraHeader=Authorization: Bearer tok3n"},
			urlFor: func(u string) string { return u },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := StartHTTP(t, tt.opt)
			url := srv.SeedFiles(t, "fleet.git", map[string]string{"a.yaml": "a"})
			_, err := clone(t, url)
			if err == nil || !strings.Contains(err.Error(), "Authentication failed") && !strings.Contains(err.Error(), "could not read Username") {
				t.Fatalf("clone without credentials: err = %v, want an authentication failure", err)
			}
			if _, err := clone(t, tt.urlFor(url), tt.good...); err != nil {
				t.Fatalf("clone with credentials: %v", err)
			}
		})
	}
}

func TestSeedFromDirectory(t *testing.T) {
	srv := StartDaemon(t)
	src := t.TempDir()
	files := map[string]string{"sites/a.yaml": "a\n", "b.yaml": "b"}
	WriteFiles(t, src, files)
	srv.Seed(t, "fleet.git", src)
	if got := srv.Files(t, "fleet.git", "main", "."); !maps.Equal(got, files) {
		t.Errorf("Files = %q, want %q", got, files)
	}
}

func TestSSH(t *testing.T) {
	keys := t.TempDir()
	key, pub := SSHKey(t, keys)
	other, _ := SSHKey(t, t.TempDir())
	srv := StartSSH(t, pub)
	url := srv.SeedFiles(t, "fleet.git", map[string]string{"a.yaml": "a\n"})
	if !strings.HasPrefix(url, "ssh://git@127.0.0.1:") {
		t.Errorf("URL = %q", url)
	}
	knownHosts := filepath.Join(keys, "known_hosts")
	WriteFiles(t, keys, map[string]string{"known_hosts": srv.KnownHosts()})
	sshWith := func(k string) []string {
		return []string{"-c", "core.sshCommand=ssh -i " + k + " -o IdentitiesOnly=yes -o BatchMode=yes -o UserKnownHostsFile=" + knownHosts + " -o StrictHostKeyChecking=yes"}
	}

	dir, err := clone(t, url, sshWith(key)...)
	if err != nil {
		t.Fatalf("clone over ssh: %v", err)
	}
	WriteFiles(t, dir, map[string]string{"b.yaml": "b\n"})
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "-m", "b")
	if out, err := git(dir, nil, append(sshWith(key), "push", "-q", "origin", "main")...); err != nil {
		t.Fatalf("push over ssh: %v\n%s", err, out)
	}
	if got := srv.Files(t, "fleet.git", "main", "."); len(got) != 2 {
		t.Errorf("files after the push = %q", got)
	}
	if _, err := clone(t, url, sshWith(other)...); err == nil || !strings.Contains(err.Error(), "Permission denied") {
		t.Errorf("clone with an unauthorized key: err = %v, want permission denied", err)
	}
	srv.Stop()
	if _, err := clone(t, url, sshWith(key)...); err == nil {
		t.Error("clone from a stopped server succeeded")
	}
	srv.Start()
	if _, err := clone(t, url, sshWith(key)...); err != nil {
		t.Errorf("clone after restart: %v", err)
	}
}
