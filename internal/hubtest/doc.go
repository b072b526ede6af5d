// Package hubtest runs a real Kubernetes hub on loopback for tests and for
// people trying siteops: etcd and kube-apiserver built from the Go module
// proxy (tool modules under hack/hub, binaries cached under the user's
// cache directory keyed by version), generated certificates, a bearer
// token in system:masters, RBAC authorization, and the upstream CRDs of the
// kinds siteops renders installed and established.
//
//	func TestMain(m *testing.M) { hubtest.Main(m) }
//
//	func TestApply(t *testing.T) {
//		h := hubtest.Shared(t)   // started once per test binary
//		cfg := h.Config()        // *rest.Config, system:masters
//		...
//	}
//
// A test that stops or restarts the API server starts its own hub with
// Start. Every process runs under a deadline and dies with the test binary
// (parent-death signal); Stop kills both and removes the hub's directory.
//
// There is no controller-manager: namespaces that are deleted stay
// Terminating and owner references are not collected. Tests play the
// controllers they need (status subresources, finalizers) themselves.
//
// The binaries are built on first use. A build failure fails the test: a
// hub test never skips, so a machine that cannot build the hub shows red.
package hubtest
