package hub

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/siteops/siteops/internal/kubeclient"
)

// clients are the engine's and the dry runner's ways to the hub.
type clients struct {
	dyn    dynamic.Interface
	meta   metadata.Interface
	mapper meta.ResettableRESTMapper
}

// newClients applies the options and makes the clients of cfg, rate
// limited, with the API server's warnings logged.
func newClients(cfg *rest.Config, opts []Option) (options, clients, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	cfg = kubeclient.Config(cfg, o.qps, o.burst, "siteops", o.logger)
	var c clients
	var err error
	if c.dyn, err = dynamic.NewForConfig(cfg); err != nil {
		return o, c, fmt.Errorf("hub client: %w", err)
	}
	if c.meta, err = metadata.NewForConfig(cfg); err != nil {
		return o, c, fmt.Errorf("hub client: %w", err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return o, c, fmt.Errorf("hub client: %w", err)
	}
	c.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	return o, c, nil
}
