package cli

import (
	"strings"
	"testing"
)

// Bad hub-sim flags are usage errors that name the flag, before any
// connection is tried.
func TestHubSimFlags(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--speed", "fast"}, `--speed "fast"`},
		{[]string{"--speed", "-3"}, `--speed "-3"`},
		{[]string{"--namespace-selector", "a in (b"}, `--namespace-selector "a in (b"`},
		{[]string{"--kube-qps", "0"}, "--kube-qps"},
		{[]string{"--workers", "0"}, "--workers"},
		{[]string{"--log-level", "loud"}, "--log-level"},
		{[]string{"extra"}, "unknown command"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, stderr := runMain(t, append([]string{"hub-sim", "--kubeconfig", "/nonexistent"}, c.args...)...)
			if code != ExitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, want %d with %q:\n%s", code, ExitUsage, c.want, stderr)
			}
		})
	}
	// A kubeconfig that does not exist is a usage error naming the command.
	code, stderr := runMain(t, "hub-sim", "--kubeconfig", "/nonexistent/kubeconfig")
	if code != ExitUsage || !strings.Contains(stderr, "hub-sim: no hub configuration") {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
}
