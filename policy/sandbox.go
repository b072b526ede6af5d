package policy

import (
	"slices"

	"github.com/open-policy-agent/opa/v1/ast"
)

// deniedBuiltins are the OPA built-ins a policy may not call. Policies
// come from the repository under review, so they must not reach the
// network or the environment of the machine that checks them:
//
//   - http.send and net.lookup_ip_addr reach the network;
//   - opa.runtime returns the process environment (CI secrets live there);
//   - providers.aws.sign_req exists only to sign outbound requests;
//   - trace writes to a tracer nobody reads and is the way to leak data
//     into logs where tracing is enabled;
//   - strings.render_template runs a Go template, which may range over a
//     number as large as it likes and is never cancelled: it would keep a
//     worker busy after the site's time limit, for ever;
//   - graph.reachable_paths lists every path of a graph, exponentially
//     many, in one uncancellable call.
//
// The pure net.cidr_* functions stay: they compute on their arguments
// only, the built-in library needs them, and conftest policies use them.
// time.now_ns and the random functions stay as well: they make a result
// nondeterministic but cannot read or send anything.
var deniedBuiltins = []string{
	"http.send",
	"net.lookup_ip_addr",
	"opa.runtime",
	"providers.aws.sign_req",
	"trace",
	"strings.render_template",
	"graph.reachable_paths",
}

// capabilities returns what policies may use: this OPA's built-ins minus
// deniedBuiltins, plus siteops' own, and no network access for anything
// (AllowNet empty, which also keeps remote JSON schemas out).
func capabilities() *ast.Capabilities {
	caps := ast.CapabilitiesForThisVersion()
	caps.Builtins = slices.DeleteFunc(caps.Builtins, func(b *ast.Builtin) bool {
		return slices.Contains(deniedBuiltins, b.Name)
	})
	caps.Builtins = append(caps.Builtins, ignitionErrorsBuiltin)
	caps.AllowNet = []string{}
	return caps
}
