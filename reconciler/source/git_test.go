package source

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"

	"github.com/siteops/siteops/internal/gittest"
)

var fleet = map[string]string{
	"sites/sno1/siteconfig.yaml": "name: sno1\n",
	"sites/ha1/siteconfig.yaml":  "name: ha1\n",
	"README.md":                  "fleet\n",
}

// servers are the transports every basic test runs over.
var servers = []struct {
	name string
	url  func(t *testing.T) (*gittest.Server, string)
}{
	{"git daemon", func(t *testing.T) (*gittest.Server, string) {
		s := gittest.StartDaemon(t)
		return s, s.SeedFiles(t, "fleet.git", fleet)
	}},
	{"http backend", func(t *testing.T) (*gittest.Server, string) {
		s := gittest.StartHTTP(t)
		return s, s.SeedFiles(t, "fleet.git", fleet)
	}},
	{"file", func(t *testing.T) (*gittest.Server, string) {
		s := gittest.StartDaemon(t) // only its repositories are used
		s.SeedFiles(t, "fleet.git", fleet)
		return s, "file://" + filepath.Join(s.Dir(), "fleet.git")
	}},
}

func TestGitCloneAndFetch(t *testing.T) {
	for _, tt := range servers {
		t.Run(tt.name, func(t *testing.T) {
			srv, url := tt.url(t)
			g := newTestGit(t, GitOptions{URL: url})

			first := mustNext(t, g)
			if want := srv.Head(t, "fleet.git", "main"); first.Revision != want {
				t.Fatalf("first revision = %s, want %s", first.Revision, want)
			}
			if first.Changed != nil {
				t.Errorf("first Changed = %q, want nil (everything)", first.Changed)
			}
			if got := readAll(t, first.FS, "."); !maps.Equal(got, fleet) {
				t.Errorf("first tree = %q, want %q", got, fleet)
			}

			// A commit touching only the status directory is not returned;
			// the next one is, with the paths changed since the last
			// snapshot returned.
			srv.Commit(t, "fleet.git", "main", map[string]string{"status/sno1.yaml": "someone\n"}, "status by hand")
			calls := g.clock.Calls()
			g.Trigger()
			done := make(chan Snapshot, 1)
			go func() { snap, _ := next(t, g); done <- snap }()
			g.clock.waitForWait(t, calls) // fetched, skipped, waiting again
			human := srv.Commit(t, "fleet.git", "main", map[string]string{
				"sites/sno1/siteconfig.yaml": "name: sno1\nchanged: true\n",
				"sites/ha1/siteconfig.yaml":  gittest.Remove,
			}, "edit sno1, drop ha1")
			g.Trigger()
			snap := <-done
			if snap.Revision != human {
				t.Fatalf("revision = %s, want %s", snap.Revision, human)
			}
			want := []string{"sites/ha1/siteconfig.yaml", "sites/sno1/siteconfig.yaml"}
			if !slices.Equal(snap.Changed, want) {
				t.Errorf("Changed = %q, want %q", snap.Changed, want)
			}
			if _, err := snap.FS.Open("sites/ha1/siteconfig.yaml"); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("removed file still in the tree: %v", err)
			}
		})
	}
}

func TestGitFetchesEveryInterval(t *testing.T) {
	srv, url := servers[0].url(t)
	g := newTestGit(t, GitOptions{URL: url, Interval: DefaultInterval})
	mustNext(t, g)
	calls := g.clock.Calls()
	done := make(chan Snapshot, 1)
	go func() { snap, _ := next(t, g); done <- snap }()
	g.clock.waitForWait(t, calls)
	human := srv.Commit(t, "fleet.git", "main", map[string]string{"sites/new/siteconfig.yaml": "name: new\n"}, "new site")
	g.clock.Advance(DefaultInterval - 1)
	select {
	case <-done:
		t.Fatal("Next returned before the interval passed")
	default:
	}
	g.clock.Advance(1)
	if snap := <-done; snap.Revision != human {
		t.Errorf("revision after the interval = %s, want %s", snap.Revision, human)
	}
}

func TestGitWriteStatus(t *testing.T) {
	tests := []struct {
		name      string
		statusDir string
	}{
		{"default status directory", ""},
		{"nested status directory", ".siteops/status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, url := servers[0].url(t)
			g := newTestGit(t, GitOptions{URL: url, StatusDir: tt.statusDir})
			dir := g.o.StatusDir
			snap := mustNext(t, g)
			steps := []struct {
				name        string
				files       map[string]string
				wantChanged bool
			}{
				{"first status", map[string]string{"sno1.yaml": "phase: Installing\n", "ha1.yaml": "phase: Pending\n", "README.md": "| site |\n"}, true},
				{"same content", map[string]string{"sno1.yaml": "phase: Installing\n", "ha1.yaml": "phase: Pending\n", "README.md": "| site |\n"}, false},
				{"one changed, one removed, one nested", map[string]string{"sno1.yaml": "phase: Installed\n", "README.md": "| site |\n", "hosts/sno1-0.yaml": "x\n"}, true},
				{"empty", map[string]string{}, true},
				{"empty again", map[string]string{}, false},
			}
			files := NewStatusFiles()
			for _, step := range steps {
				before := srv.Head(t, "fleet.git", "main")
				holdExactly(files, step.files)
				changed, err := g.WriteStatus(context.Background(), files, "Status: "+step.name)
				if err != nil {
					t.Fatalf("%s: %v", step.name, err)
				}
				if changed != step.wantChanged {
					t.Errorf("%s: changed = %v, want %v", step.name, changed, step.wantChanged)
				}
				head := srv.Head(t, "fleet.git", "main")
				if (head != before) != step.wantChanged {
					t.Errorf("%s: head moved = %v, want %v", step.name, head != before, step.wantChanged)
				}
				if got, want := srv.Files(t, "fleet.git", "main", dir), prefixed(dir+"/", step.files); !maps.Equal(got, want) {
					t.Errorf("%s: status on the server = %q, want %q", step.name, got, want)
				}
				if got := srv.Files(t, "fleet.git", "main", "sites"); len(got) != 2 {
					t.Errorf("%s: the sites changed: %q", step.name, got)
				}
			}
			author := gittest.Git(t, filepath.Join(srv.Dir(), "fleet.git"), "log", "-1", "--format=%an <%ae>|%cn <%ce>|%s", "main")
			if want := "siteops <siteops@localhost>|siteops <siteops@localhost>|Status: empty"; author != want {
				t.Errorf("last status commit = %q, want %q", author, want)
			}
			// The loop never sees its own status commits.
			calls := g.clock.Calls()
			g.Trigger()
			go next(t, g)
			g.clock.waitForWait(t, calls)
			if g.last.String() != srv.Head(t, "fleet.git", "main") || g.last.String() == snap.Revision {
				t.Errorf("status commits not skipped: last = %s", g.last)
			}
		})
	}
}

func TestGitWriteStatusRefusesBadPaths(t *testing.T) {
	_, url := servers[0].url(t)
	g := newTestGit(t, GitOptions{URL: url})
	mustNext(t, g)
	for _, p := range []string{"../escape.yaml", "/abs.yaml", "a//b.yaml", "."} {
		_, err := g.WriteStatus(context.Background(), StatusFilesOf(map[string][]byte{p: []byte("x")}), "bad")
		if err == nil || !strings.Contains(err.Error(), "status file") {
			t.Errorf("WriteStatus(%q) err = %v, want one naming the status file", p, err)
		}
	}
}

// TestGitStatusPushRace has a person push between siteops' commit and
// its push, twice. The first push, made on the tip the clone knew, finds
// the branch moved: siteops fetches and commits again at once. The
// second, made on the fetched tip, is refused too: siteops backs off,
// fetches, makes its status commit again on the person's last commit and
// pushes; nothing is lost.
func TestGitStatusPushRace(t *testing.T) {
	srv, url := servers[1].url(t)
	var humans []string
	o := GitOptions{URL: url}
	o.beforePush = func() {
		if len(humans) < 2 {
			humans = append(humans, srv.Commit(t, "fleet.git", "main", map[string]string{
				fmt.Sprintf("sites/new%d/siteconfig.yaml", len(humans)): "name: new\n",
				"status/sno1.yaml": "written by a person\n",
			}, "a person's push"))
		}
	}
	g := newTestGit(t, o)
	mustNext(t, g)

	calls := g.clock.Calls()
	type result struct {
		changed bool
		err     error
	}
	done := make(chan result, 1)
	status := map[string]string{"sno1.yaml": "phase: Installing\n"}
	go func() {
		changed, err := g.WriteStatus(context.Background(), StatusFilesOf(bytesMap(status)), "Status: sno1")
		done <- result{changed, err}
	}()
	g.clock.waitForWait(t, calls) // backing off after the refused push
	g.clock.Advance(DefaultPushBackoff)
	res := <-done
	if res.err != nil || !res.changed {
		t.Fatalf("WriteStatus = %v, %v; want true, nil", res.changed, res.err)
	}
	head := srv.Head(t, "fleet.git", "main")
	if parent := gittest.Git(t, filepath.Join(srv.Dir(), "fleet.git"), "rev-parse", head+"^"); parent != humans[1] {
		t.Errorf("status commit's parent = %s, want the person's last commit %s", parent, humans[1])
	}
	if got := srv.Files(t, "fleet.git", "main", "status"); !maps.Equal(got, prefixed("status/", status)) {
		t.Errorf("status = %q, want siteops' %q", got, status)
	}
	for i := range humans {
		if got := srv.Files(t, "fleet.git", "main", fmt.Sprintf("sites/new%d", i)); len(got) != 1 {
			t.Errorf("the person's site %d is lost: %q", i, got)
		}
	}
	if g.counter("push") != 1 || g.counter("retries") != 1 {
		t.Errorf("push errors = %v, retries = %v; want 1 and 1", g.counter("push"), g.counter("retries"))
	}
}

// TestGitServerOutage stops the server mid-run: fetches fail with a clear
// error, the status push backs off and lands once the server is back.
func TestGitServerOutage(t *testing.T) {
	srv, url := servers[0].url(t)
	g := newTestGit(t, GitOptions{URL: url})
	mustNext(t, g)

	srv.Stop()
	g.Trigger()
	_, err := next(t, g)
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "cannot reach "+url) {
		t.Fatalf("Next with the server down: err = %v, want one saying %s cannot be reached", err, url)
	}
	if g.counter("fetch") != 1 {
		t.Errorf("fetch errors = %v, want 1", g.counter("fetch"))
	}

	status := map[string]string{"sno1.yaml": "phase: Installed\n"}
	done := make(chan error, 1)
	calls := g.clock.Calls()
	go func() {
		_, err := g.WriteStatus(context.Background(), StatusFilesOf(bytesMap(status)), "Status")
		done <- err
	}()
	wait := DefaultPushBackoff
	for range 3 { // three failures, each followed by a longer wait
		g.clock.waitForWait(t, calls)
		calls = g.clock.Calls()
		g.clock.Advance(wait)
		wait *= 2
	}
	g.clock.waitForWait(t, calls)
	srv.Start()
	g.clock.Advance(wait)
	if err := <-done; err != nil {
		t.Fatalf("WriteStatus across the outage: %v", err)
	}
	if got := srv.Files(t, "fleet.git", "main", "status"); !maps.Equal(got, prefixed("status/", status)) {
		t.Errorf("status after the outage = %q, want %q", got, status)
	}
	if g.counter("retries") != 4 {
		t.Errorf("push retries = %v, want 4", g.counter("retries"))
	}

	human := srv.Commit(t, "fleet.git", "main", map[string]string{"sites/x/siteconfig.yaml": "x\n"}, "after the outage")
	g.Trigger()
	if snap := mustNext(t, g); snap.Revision != human {
		t.Errorf("revision after the outage = %s, want %s", snap.Revision, human)
	}
}

func TestGitPushGivesUp(t *testing.T) {
	srv, url := servers[0].url(t)
	g := newTestGit(t, GitOptions{URL: url, PushAttempts: 2})
	mustNext(t, g)
	srv.Stop()
	done := make(chan error, 1)
	calls := g.clock.Calls()
	go func() {
		_, err := g.WriteStatus(context.Background(), StatusFilesOf(map[string][]byte{"a.yaml": []byte("a")}), "Status")
		done <- err
	}()
	g.clock.waitForWait(t, calls)
	g.clock.Advance(DefaultPushBackoff)
	err := <-done
	if err == nil || !strings.Contains(err.Error(), "status not pushed after 2 attempts") || !errors.Is(err, ErrUnreachable) {
		t.Errorf("err = %v, want one saying the status was not pushed after 2 attempts", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	calls = g.clock.Calls()
	go func() {
		_, err := g.WriteStatus(ctx, StatusFilesOf(map[string][]byte{"a.yaml": []byte("a")}), "Status")
		done <- err
	}()
	g.clock.waitForWait(t, calls)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled WriteStatus err = %v, want context.Canceled", err)
	}
}

func TestGitStatusBranch(t *testing.T) {
	srv, url := servers[0].url(t)
	g := newTestGit(t, GitOptions{URL: url, StatusBranch: "siteops-status"})
	mustNext(t, g)
	main := srv.Head(t, "fleet.git", "main")

	if _, err := g.WriteStatus(context.Background(), StatusFilesOf(map[string][]byte{"a.yaml": []byte("1\n")}), "Status 1"); err != nil {
		t.Fatal(err)
	}
	first := srv.Head(t, "fleet.git", "siteops-status")
	if first == "" {
		t.Fatal("status branch not created")
	}
	if parent := gittest.Git(t, filepath.Join(srv.Dir(), "fleet.git"), "rev-parse", first+"^"); parent != main {
		t.Errorf("status branch made from %s, want main %s", parent, main)
	}
	if _, err := g.WriteStatus(context.Background(), StatusFilesOf(map[string][]byte{"a.yaml": []byte("2\n")}), "Status 2"); err != nil {
		t.Fatal(err)
	}
	second := srv.Head(t, "fleet.git", "siteops-status")
	if parent := gittest.Git(t, filepath.Join(srv.Dir(), "fleet.git"), "rev-parse", second+"^"); parent != first {
		t.Errorf("second status commit on %s, want on the first %s", parent, first)
	}
	if srv.Head(t, "fleet.git", "main") != main {
		t.Error("main moved")
	}
	if got := srv.Files(t, "fleet.git", "main", "status"); len(got) != 0 {
		t.Errorf("status written to main: %q", got)
	}
}

func TestGitRestartResumes(t *testing.T) {
	srv, url := servers[0].url(t)
	state := t.TempDir()
	tests := []struct {
		name        string
		mark        bool
		change      map[string]string
		wantChanged []string
	}{
		{"nothing recorded", false, nil, nil},
		{"reconciled, then one site changed", true, map[string]string{"sites/sno1/siteconfig.yaml": "v2\n"}, []string{"sites/sno1/siteconfig.yaml"}},
		{"reconciled, nothing new", true, nil, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newTestGit(t, GitOptions{URL: url, StateDir: state})
			snap := mustNext(t, g)
			if tt.mark {
				if err := g.MarkReconciled(snap.Revision); err != nil {
					t.Fatal(err)
				}
			}
			g.Close()
			if tt.change != nil {
				srv.Commit(t, "fleet.git", "main", tt.change, "while siteops was down")
			}
			again := newTestGit(t, GitOptions{URL: url, StateDir: state})
			snap = mustNext(t, again)
			if !slices.Equal(snap.Changed, tt.wantChanged) || (snap.Changed == nil) != (tt.wantChanged == nil) {
				t.Errorf("Changed after restart = %#v, want %#v", snap.Changed, tt.wantChanged)
			}
			again.MarkReconciled(snap.Revision) // the next case starts from here
			if !tt.mark {
				os.Remove(again.reconciledFile())
			}
		})
	}
	if err := newTestGit(t, GitOptions{URL: url, StateDir: state}).MarkReconciled("HEAD"); err == nil {
		t.Error("MarkReconciled accepted a revision that is not a commit id")
	}
}

func TestGitClearErrors(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("wrong-t0ken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	goodToken := filepath.Join(t.TempDir(), "good")
	if err := os.WriteFile(goodToken, []byte("right-t0ken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	basic := gittest.StartHTTP(t, gittest.WithBasicAuth("git", "right-t0ken"))
	basicURL := basic.SeedFiles(t, "fleet.git", fleet)
	bearer := gittest.StartHTTP(t, gittest.WithBearerToken("right-t0ken"))
	bearerURL := bearer.SeedFiles(t, "fleet.git", fleet)
	daemon := gittest.StartDaemon(t)
	daemonURL := daemon.SeedFiles(t, "fleet.git", fleet)
	userinfoURL := strings.Replace(basicURL, "http://", "http://git:wrong-t0ken@", 1)

	tests := []struct {
		name    string
		o       GitOptions
		is      error
		want    []string
		secrets []string
	}{
		{
			name: "no credentials",
			o:    GitOptions{URL: basicURL},
			is:   ErrAuthentication,
			want: []string{"authentication failed for " + basicURL, "no credentials were given"},
		},
		{
			name:    "wrong token",
			o:       GitOptions{URL: basicURL, Auth: GitAuth{TokenFile: tokenFile}},
			is:      ErrAuthentication,
			want:    []string{"authentication failed for " + basicURL, "check the token in " + tokenFile},
			secrets: []string{"wrong-t0ken"},
		},
		{
			name:    "wrong password in the URL",
			o:       GitOptions{URL: userinfoURL},
			is:      ErrAuthentication,
			want:    []string{"authentication failed for http://REDACTED@127.0.0.1"},
			secrets: []string{"wrong-t0ken"},
		},
		{
			name: "unknown branch",
			o:    GitOptions{URL: daemonURL, Branch: "prod"},
			is:   ErrBranchNotFound,
			want: []string{`branch "prod" not found in ` + daemonURL + "; branches: main"},
		},
		{
			name: "no such repository",
			o:    GitOptions{URL: strings.Replace(daemonURL, "fleet.git", "nope.git", 1)},
			want: []string{"nope.git"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newTestGit(t, tt.o)
			_, err := next(t, g)
			if err == nil {
				t.Fatal("Next succeeded")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("err = %v, want errors.Is %v", err, tt.is)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v\nwant it to contain %q", err, w)
				}
			}
			for _, s := range tt.secrets {
				if strings.Contains(err.Error(), s) || strings.Contains(g.logs.String(), s) {
					t.Errorf("secret %q leaked: err = %v\nlogs:\n%s", s, err, g.logs)
				}
			}
		})
	}

	good := []struct {
		name string
		o    GitOptions
	}{
		{"token as basic-auth password", GitOptions{URL: basicURL, Auth: GitAuth{TokenFile: goodToken}}},
		{"bearer token", GitOptions{URL: bearerURL, Auth: GitAuth{TokenFile: goodToken, BearerToken: true}}},
		{"user and password file", GitOptions{URL: basicURL, Auth: GitAuth{Username: "git", PasswordFile: goodToken}}},
	}
	for _, tt := range good {
		t.Run(tt.name, func(t *testing.T) {
			g := newTestGit(t, tt.o)
			mustNext(t, g)
			if _, err := g.WriteStatus(context.Background(), StatusFilesOf(map[string][]byte{"a.yaml": []byte(tt.name)}), "Status"); err != nil {
				t.Errorf("WriteStatus: %v", err)
			}
		})
	}
	t.Run("token from the environment", func(t *testing.T) {
		t.Setenv(EnvGitToken, "right-t0ken")
		mustNext(t, newTestGit(t, GitOptions{URL: basicURL}))
	})
}

func TestGitOptionsRefused(t *testing.T) {
	tests := []struct {
		name string
		o    GitOptions
		want string
	}{
		{"no URL", GitOptions{StateDir: "x"}, "no repository URL"},
		{"no state dir", GitOptions{URL: "git://h/r"}, "no state directory"},
		{"bad branch", GitOptions{URL: "git://h/r", StateDir: "x", Branch: "a..b"}, `branch "a..b" is not a valid`},
		{"status dir escapes", GitOptions{URL: "git://h/r", StateDir: "x", StatusDir: "../s"}, "status directory"},
		{"unreadable key", GitOptions{URL: "ssh://git@h/r", StateDir: "x", Auth: GitAuth{SSHKeyFile: "/nonexistent/key"}}, "read the ssh key /nonexistent/key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewGit(context.Background(), tt.o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestGitWriteStatusMany writes more status files than are stored
// loose (they go in one pack file), then changes one.
func TestGitWriteStatusMany(t *testing.T) {
	srv, url := servers[0].url(t)
	g := newTestGit(t, GitOptions{URL: url})
	mustNext(t, g)
	status := map[string]string{}
	for i := range 3 * packThreshold {
		status[fmt.Sprintf("site-%03d.yaml", i)] = fmt.Sprintf("site: %d\n", i)
	}
	// All new: a pack of whole objects, which the clone stores as pushed.
	// A wave: the status tree goes as a delta on the one the remote holds,
	// so the clone's pack is compressed apart. One changed: loose objects.
	// The files are held from one write to the next, as the loop holds
	// them: the source then knows what the remote has.
	files := StatusFilesOf(bytesMap(status))
	set := func(name, data string) {
		status[name] = data
		files.Set(name, []byte(data))
	}
	for _, step := range []struct {
		name       string
		compressed int64 // clone packs compressed apart from the one pushed
	}{{"all new", 0}, {"a wave", 1}, {"one changed", 0}} {
		switch step.name {
		case "a wave":
			// A third of the sites: enough objects for a pack, few enough
			// for the tree's delta to be worth sending.
			for i := range packThreshold {
				set(fmt.Sprintf("site-%03d.yaml", i), fmt.Sprintf("site: %d\nphase: Installing\n", i))
			}
		case "one changed":
			set("site-007.yaml", "site: 7\nphase: Installed\n")
		}
		before := packsCompressedAgain.Load()
		if changed, err := g.WriteStatus(context.Background(), files, step.name); err != nil || !changed {
			t.Fatalf("%s: WriteStatus = %v, %v", step.name, changed, err)
		}
		if n := packsCompressedAgain.Load() - before; n != step.compressed {
			t.Errorf("%s: %d packs compressed for the clone apart from the one pushed, want %d", step.name, n, step.compressed)
		}
		if got := srv.Files(t, "fleet.git", "main", "status"); !maps.Equal(got, prefixed("status/", status)) {
			t.Errorf("%s: %d status files on the server, want %d", step.name, len(got), len(status))
		}
		// The clone holds the commit whole: the pack siteops stored with
		// its own index (the first step) is one git reads and verifies.
		repo := filepath.Dir(g.objectsDir())
		gittest.Git(t, repo, "fsck", "--strict", "--no-dangling")
		packs, _ := filepath.Glob(filepath.Join(g.objectsDir(), "pack", "*.idx"))
		for _, idx := range packs {
			gittest.Git(t, repo, "verify-pack", idx)
		}
		if step.name == "all new" && len(packs) < 2 {
			t.Errorf("%s: packs %q, want the fetched one and the status commit's", step.name, packs)
		}
		// And go-git, which read the clone before, reads the new objects.
		err := g.repo.Locked(func(r *git.Repository) error {
			ref, err := r.Reference(statusRef, true)
			if err != nil {
				return err
			}
			c, err := r.CommitObject(ref.Hash())
			if err != nil {
				return err
			}
			f, err := c.File("status/site-007.yaml")
			if err != nil {
				return err
			}
			got, err := f.Contents()
			if err == nil && got != status["site-007.yaml"] {
				err = fmt.Errorf("site-007.yaml = %q, want %q", got, status["site-007.yaml"])
			}
			return err
		})
		if err != nil {
			t.Fatalf("%s: the clone's status commit: %v", step.name, err)
		}
	}
}

func TestGitSSH(t *testing.T) {
	keys := t.TempDir()
	key, pub := gittest.SSHKey(t, keys)
	other, _ := gittest.SSHKey(t, t.TempDir())
	srv := gittest.StartSSH(t, pub)
	url := srv.SeedFiles(t, "fleet.git", fleet)
	knownHosts := filepath.Join(keys, "known_hosts")
	stranger := filepath.Join(keys, "stranger_hosts")
	gittest.WriteFiles(t, keys, map[string]string{
		"known_hosts":    srv.KnownHosts(),
		"stranger_hosts": gittest.StartSSH(t).KnownHosts(), // another server's key
	})

	g := newTestGit(t, GitOptions{URL: url, Auth: GitAuth{SSHKeyFile: key, KnownHostsFile: knownHosts}})
	if snap := mustNext(t, g); snap.Revision != srv.Head(t, "fleet.git", "main") {
		t.Errorf("revision over ssh = %s", snap.Revision)
	}
	if _, err := g.WriteStatus(context.Background(), StatusFilesOf(map[string][]byte{"a.yaml": []byte("a\n")}), "Status"); err != nil {
		t.Fatalf("WriteStatus over ssh: %v", err)
	}
	if got := srv.Files(t, "fleet.git", "main", "status"); got["status/a.yaml"] != "a\n" {
		t.Errorf("status over ssh = %q", got)
	}

	tests := []struct {
		name string
		auth GitAuth
		is   error
		want string
	}{
		{"key not authorized", GitAuth{SSHKeyFile: other, KnownHostsFile: knownHosts}, ErrAuthentication, "check that the key " + other},
		{"host key not known", GitAuth{SSHKeyFile: key, KnownHostsFile: stranger}, nil, "ssh host key of " + url + " is not accepted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := next(t, newTestGit(t, GitOptions{URL: url, Auth: tt.auth}))
			if err == nil || !strings.Contains(err.Error(), tt.want) || (tt.is != nil && !errors.Is(err, tt.is)) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestCloseWakesNext(t *testing.T) {
	_, url := servers[0].url(t)
	dir := t.TempDir()
	gittest.WriteFiles(t, dir, fleet)
	g := newTestGit(t, GitOptions{URL: url})
	d, _ := newTestDir(t, DirOptions{Dir: dir})
	for _, s := range []Source{g, d} {
		mustNext(t, s)
		done := make(chan error, 1)
		go func() { _, err := next(t, s); done <- err }()
		s.Close()
		if err := <-done; !errors.Is(err, ErrClosed) {
			t.Errorf("%T: Next after Close: err = %v, want ErrClosed", s, err)
		}
	}
}
