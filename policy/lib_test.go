package policy

import (
	"context"
	"fmt"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"
)

// TestIsBroadcast evaluates the library's broadcast test against the
// broadcast address worked out by hand, for prefixes whose host bits end in
// the last octet and for those that reach into the others.
func TestIsBroadcast(t *testing.T) {
	e, err := Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ip, cidr string
		want     bool
	}{
		{"10.0.0.47", "10.0.0.32/28", true},
		{"10.0.0.35", "10.0.0.32/28", false},
		{"10.0.0.46", "10.0.0.32/28", false},
		{"10.0.0.63", "10.0.0.32/28", false}, // outside the network
		{"192.0.2.63", "192.0.2.0/26", true},
		{"192.0.2.255", "192.0.2.0/24", true},
		{"10.0.3.255", "10.0.0.0/22", true},
		{"10.0.1.255", "10.0.0.0/22", false}, // last octet all ones, third not
		{"10.0.2.255", "10.0.0.0/22", false},
		{"172.16.255.255", "172.16.0.0/16", true},
		{"172.16.254.255", "172.16.0.0/16", false},
		{"10.255.255.255", "10.0.0.0/8", true},
		{"10.0.0.3", "10.0.0.0/30", true},
		{"10.0.0.1", "10.0.0.0/31", false}, // no broadcast address
		{"10.0.0.0", "10.0.0.0/32", false},
		{"10.0.0.255", "fd00::/64", false},
	} {
		rs, err := rego.New(rego.Compiler(e.compiler), rego.Query(fmt.Sprintf("data.siteops.lib.is_broadcast(%q, %q)", c.ip, c.cidr))).
			Eval(context.Background())
		if err != nil {
			t.Fatalf("is_broadcast(%s, %s): %v", c.ip, c.cidr, err)
		}
		got := len(rs) == 1
		if got != c.want {
			t.Errorf("is_broadcast(%s, %s) = %v, want %v", c.ip, c.cidr, got, c.want)
		}
	}
}
