// Package gittest starts real Git servers on loopback for tests: `git
// daemon` (git:// URLs, pushes enabled), `git http-backend` served
// through net/http/cgi (http:// URLs, optionally behind basic or bearer
// authentication), and an SSH server running the real git-upload-pack
// and git-receive-pack for authorized keys (ssh:// URLs). A server can be
// stopped and started again on the same port to test outages.
//
//	srv := gittest.StartDaemon(t)
//	url := srv.Seed(t, "fleet.git", "testdata/fleet") // bare repo, branch main
//	srv.Commit(t, "fleet.git", "main", map[string]string{"sites/a.yaml": "..."}, "a human change")
//	srv.Stop()  // connections now fail
//	srv.Start() // same URL again
//
// The git command line runs isolated from the user's and the system's
// configuration. Everything lives under t.TempDir and every process is
// stopped by t.Cleanup.
package gittest
