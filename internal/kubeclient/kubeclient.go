// Package kubeclient sets up the client configuration a siteops process
// talks to a Kubernetes API server with: the hub engine and the hub
// simulator alike.
package kubeclient

import (
	"log/slog"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// Config returns a copy of cfg for one process's clients: a single token
// bucket at qps and burst shared by every client made from it, so that
// the limit is the process's and not each client's; agent as the user
// agent unless cfg sets one; and the API server's warnings (such as
// unknown formats in a CRD schema) logged at debug level instead of
// printed.
func Config(cfg *rest.Config, qps float32, burst int, agent string, log *slog.Logger) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = qps, burst
	cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(qps, burst)
	if cfg.UserAgent == "" {
		cfg.UserAgent = agent
	}
	cfg.WarningHandler = warningLogger{log}
	return cfg
}

type warningLogger struct{ log *slog.Logger }

func (w warningLogger) HandleWarningHeader(code int, agent, text string) {
	w.log.Debug("hub warning", "code", code, "agent", agent, "text", text)
}
