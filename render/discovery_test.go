package render_test

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	v31 "github.com/coreos/ignition/v2/config/v3_1"
	v32 "github.com/coreos/ignition/v2/config/v3_2"
	"github.com/coreos/ignition/v2/config/v3_2/types"

	"github.com/siteops/siteops/render"
)

// discoveryOf renders the example fleet's site and builds the discovery
// Ignition of its InfraEnv with the NMStateConfigs its selector matches.
func discoveryOf(t *testing.T, b *render.Bundle) (*render.Discovery, *render.Object, []*render.Object) {
	t.Helper()
	var ie *render.Object
	var nm []*render.Object
	for _, o := range b.Objects {
		if o.Kind == render.KindInfraEnv {
			ie = o
		}
	}
	for _, o := range b.Objects {
		if render.NMStateSelectorMatches(ie, o) {
			nm = append(nm, o)
		}
	}
	d, err := render.DiscoveryIgnition(ie, nm)
	if err != nil {
		t.Fatalf("discovery ignition: %v", err)
	}
	return d, ie, nm
}

func exampleBundle(t *testing.T, name string) *render.Bundle {
	t.Helper()
	for _, b := range renderTree(t, "../examples/fleet", "", ".") {
		if b.Site == name {
			return b
		}
	}
	t.Fatalf("no site %s in examples/fleet", name)
	return nil
}

func files(c types.Config) map[string]string {
	out := map[string]string{}
	for _, f := range c.Storage.Files {
		src := ""
		if f.Contents.Source != nil {
			src = *f.Contents.Source
		}
		out[f.Path] = src
	}
	return out
}

func units(c types.Config) []string {
	var out []string
	for _, u := range c.Systemd.Units {
		out = append(out, u.Name)
	}
	return out
}

// decodeData reads a data URL as the Ignition spec defines it.
func decodeData(t *testing.T, src string) string {
	t.Helper()
	head, body, ok := strings.Cut(strings.TrimPrefix(src, "data:"), ",")
	if !ok {
		t.Fatalf("not a data URL: %.40s", src)
	}
	if strings.HasSuffix(head, ";base64") {
		b, err := base64.StdEncoding.DecodeString(body)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	return body
}

func TestDiscoveryIgnitionOfExampleSites(t *testing.T) {
	for _, tc := range []struct {
		name       string
		site       string
		hosts      int
		ntp, proxy bool
	}{
		{name: "SNO with static network and NTP sources", site: "marlow-sno-01", hosts: 1, ntp: true},
		{name: "DHCP: no static network", site: "kestrel-3n-01", hosts: 0},
		{name: "HA with bonds and VLANs", site: "granite-ha-01", hosts: 5},
		{name: "dual stack", site: "tidewater-ds-01", hosts: 4, ntp: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := exampleBundle(t, tc.site)
			d, ie, nm := discoveryOf(t, b)
			if len(nm) != tc.hosts {
				t.Fatalf("the selector matched %d NMStateConfigs, want %d", len(nm), tc.hosts)
			}
			if d.NMStateConfigs != len(nm) {
				t.Errorf("NMStateConfigs = %d, want %d", d.NMStateConfigs, len(nm))
			}
			// What is served is a valid Ignition 3.1.0 config (the
			// template's version) that Ignition itself accepts.
			if _, rpt, err := v31.Parse(d.JSON); err != nil || rpt.IsFatal() {
				t.Fatalf("served config does not parse as 3.1.0: %v %s", err, rpt)
			}
			var back types.Config
			if err := json.Unmarshal(d.JSON, &back); err != nil || back.Ignition.Version != "3.1.0" {
				t.Fatalf("version %q, err %v", back.Ignition.Version, err)
			}
			spec := ie.Content["spec"].(map[string]any)
			users := d.Config.Passwd.Users
			if len(users) != 1 || users[0].Name != "core" || len(users[0].SSHAuthorizedKeys) != 1 ||
				string(users[0].SSHAuthorizedKeys[0]) != spec["sshAuthorizedKey"] {
				t.Errorf("core user = %+v, want the InfraEnv's key", users)
			}
			us := units(d.Config)
			if us[0] != "agent.service" {
				t.Errorf("units %v: agent.service first", us)
			}
			if slices.Contains(us, "add-ntp-sources.service") != tc.ntp {
				t.Errorf("units %v: add-ntp-sources.service present = %v, want %v", us, !tc.ntp, tc.ntp)
			}
			fs := files(d.Config)
			var hostFiles int
			for p := range fs {
				if strings.HasPrefix(p, "/etc/assisted/network/host") {
					hostFiles++
				}
			}
			if hostFiles != 2*len(nm) {
				t.Errorf("%d static network files, want 2 per NMStateConfig (%d)", hostFiles, 2*len(nm))
			}
			if len(nm) > 0 && !slices.Contains(us, "pre-network-manager-config.service") {
				t.Errorf("units %v: static network without pre-network-manager-config.service", us)
			}
			// Each NMStateConfig's MACs are in one host directory's map,
			// and its policy captures them.
			for i, o := range nm {
				for _, itf := range o.Content["spec"].(map[string]any)["interfaces"].([]any) {
					mac := itf.(map[string]any)["macAddress"].(string)
					found := false
					for h := range len(nm) {
						ini := decodeData(t, fs[fmt.Sprintf("/etc/assisted/network/host%d/mac_interface.ini", h)])
						pol := decodeData(t, fs[fmt.Sprintf("/etc/assisted/network/host%d/ymlFile%d.yml", h, h)])
						if strings.Contains(ini, mac+"=") && strings.Contains(pol, strings.ToUpper(mac)) {
							found = true
						}
					}
					if !found {
						t.Errorf("NMStateConfig %d: MAC %s is in no host directory", i, mac)
					}
				}
			}
			// The pull secret is referenced, never read: a placeholder
			// of realistic length takes its place.
			ps := decodeData(t, fs["/root/.docker/config.json"])
			if !strings.Contains(ps, "pull-secret-not-copied") || len(ps) < 2000 {
				t.Errorf("pull secret placeholder is %d bytes: %.80s", len(ps), ps)
			}
			if !strings.Contains(*d.Config.Systemd.Units[0].Contents, "--infra-env-id ") {
				t.Error("agent.service does not pass the InfraEnv id")
			}
		})
	}
}

func infraEnv(spec map[string]any) *render.Object {
	return &render.Object{APIVersion: "agent-install.openshift.io/v1beta1", Kind: render.KindInfraEnv,
		Namespace: "site-a", Name: "site-a", Content: map[string]any{
			"metadata": map[string]any{"name": "site-a", "namespace": "site-a"}, "spec": spec}}
}

func nmState(ns, name string, labels map[string]any, ip string, macs ...string) *render.Object {
	var itfs []any
	var cfg []any
	for i, mac := range macs {
		n := fmt.Sprintf("ens%df0", i+1)
		itfs = append(itfs, map[string]any{"name": n, "macAddress": mac})
		cfg = append(cfg, map[string]any{"name": n, "type": "ethernet", "state": "up",
			"ipv4": map[string]any{"enabled": true, "dhcp": false,
				"address": []any{map[string]any{"ip": ip, "prefix-length": int64(24)}}}})
	}
	return &render.Object{APIVersion: "agent-install.openshift.io/v1beta1", Kind: render.KindNMStateConfig,
		Namespace: ns, Name: name, Content: map[string]any{
			"metadata": map[string]any{"name": name, "namespace": ns, "labels": labels},
			"spec":     map[string]any{"interfaces": itfs, "config": map[string]any{"interfaces": cfg}}}}
}

func TestNMStateSelectorMatches(t *testing.T) {
	byLabel := map[string]any{"matchLabels": map[string]any{"nmstate-label": "site-a"}}
	for _, tc := range []struct {
		name     string
		selector any
		ns       string
		labels   map[string]any
		want     bool
	}{
		{"matching label", byLabel, "site-a", map[string]any{"nmstate-label": "site-a"}, true},
		{"other namespace: the list is cluster-wide", byLabel, "elsewhere", map[string]any{"nmstate-label": "site-a"}, true},
		{"other value", byLabel, "site-a", map[string]any{"nmstate-label": "site-b"}, false},
		{"no labels", byLabel, "site-a", nil, false},
		{"empty selector selects none", map[string]any{}, "site-a", map[string]any{"nmstate-label": "site-a"}, false},
		{"no selector", nil, "site-a", map[string]any{"nmstate-label": "site-a"}, false},
		{"expression In", map[string]any{"matchExpressions": []any{map[string]any{"key": "rack", "operator": "In", "values": []any{"r1", "r2"}}}},
			"x", map[string]any{"rack": "r2"}, true},
		{"expression NotIn", map[string]any{"matchExpressions": []any{map[string]any{"key": "rack", "operator": "NotIn", "values": []any{"r1"}}}},
			"x", map[string]any{"rack": "r1"}, false},
		{"expression Exists", map[string]any{"matchExpressions": []any{map[string]any{"key": "rack", "operator": "Exists"}}},
			"x", map[string]any{"rack": ""}, true},
		{"bad operator selects none", map[string]any{"matchExpressions": []any{map[string]any{"key": "rack", "operator": "Near"}}},
			"x", map[string]any{"rack": "r1"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := map[string]any{}
			if tc.selector != nil {
				spec["nmStateConfigLabelSelector"] = tc.selector
			}
			nm := nmState(tc.ns, "h0", tc.labels, "192.0.2.10", "0a:00:00:00:00:01")
			if got := render.NMStateSelectorMatches(infraEnv(spec), nm); got != tc.want {
				t.Errorf("match = %v, want %v", got, tc.want)
			}
		})
	}
	if render.NMStateSelectorMatches(infraEnv(map[string]any{"nmStateConfigLabelSelector": byLabel}), infraEnv(nil)) {
		t.Error("an InfraEnv is not an NMStateConfig")
	}
}

func TestDiscoveryIgnitionOptions(t *testing.T) {
	spec := map[string]any{
		"sshAuthorizedKey":      "ssh-ed25519 AAAAone a@x\n\nssh-ed25519 AAAAtwo b@x\n",
		"proxy":                 map[string]any{"httpProxy": "http://proxy.example.net:3128", "noProxy": "10.0.0.0/8, .example.net"},
		"additionalNTPSources":  []any{"ntp1.example.net", "192.0.2.3"},
		"additionalTrustBundle": "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
	}
	d, err := render.DiscoveryIgnition(infraEnv(spec), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, rpt, err := v31.Parse(d.JSON); err != nil || rpt.IsFatal() {
		t.Fatalf("does not parse: %v %s", err, rpt)
	}
	if keys := d.Config.Passwd.Users[0].SSHAuthorizedKeys; len(keys) != 2 || keys[1] != "ssh-ed25519 AAAAtwo b@x" {
		t.Errorf("keys = %v, want one per non-empty line", keys)
	}
	px := d.Config.Ignition.Proxy
	if px.HTTPProxy == nil || *px.HTTPProxy != "http://proxy.example.net:3128" || px.HTTPSProxy != nil ||
		len(px.NoProxy) != 2 || px.NoProxy[1] != ".example.net" {
		t.Errorf("ignition.proxy = %+v", px)
	}
	fs := files(d.Config)
	if p := decodeData(t, fs["/etc/profile.d/proxy.sh"]); !strings.Contains(p, `export HTTP_PROXY="http://proxy.example.net:3128"`) {
		t.Errorf("proxy.sh = %q", p)
	}
	if s := decodeData(t, fs["/usr/local/bin/add-ntp-sources.sh"]); !strings.Contains(s, "server 192.0.2.3 iburst") {
		t.Errorf("add-ntp-sources.sh = %q", s)
	}
	if b := decodeData(t, fs["/etc/pki/ca-trust/source/anchors/assisted-infraenv-additional-trust-bundle.pem"]); b != spec["additionalTrustBundle"] {
		t.Errorf("trust bundle = %q", b)
	}
	if _, ok := fs["/usr/local/bin/pre-network-manager-config.sh"]; ok {
		t.Error("static network scripts without NMStateConfigs")
	}
	if !strings.Contains(*d.Config.Systemd.Units[0].Contents, "Environment=HTTP_PROXY=http://proxy.example.net:3128") {
		t.Error("agent.service does not run behind the proxy")
	}
}

func TestDiscoveryIgnitionOverride(t *testing.T) {
	for _, tc := range []struct {
		name, override, wantErr string
		version                 string
	}{
		{name: "3.2.0 override adds a file", override: `{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/etc/extra","contents":{"source":"data:,x"}}]}}`, version: "3.2.0"},
		{name: "3.1.0 override", override: `{"ignition":{"version":"3.1.0"},"storage":{"files":[{"path":"/etc/extra","contents":{"source":"data:,x"}}]}}`, version: "3.2.0"},
		{name: "override replaces the motd", override: `{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/etc/motd","contents":{"source":"data:,mine"}}]}}`, version: "3.2.0"},
		{name: "not JSON", override: `{"ignition":`, wantErr: "InfraEnv site-a/site-a: the ignitionConfigOverride does not parse"},
		{name: "invalid", override: `{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"relative"}]}}`, wantErr: "path not absolute"},
		{name: "unknown version", override: `{"ignition":{"version":"9.0.0"}}`, wantErr: "does not parse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := render.DiscoveryIgnition(infraEnv(map[string]any{"ignitionConfigOverride": tc.override}), nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			cfg, rpt, err := v32.Parse(d.JSON)
			if err != nil || rpt.IsFatal() {
				t.Fatalf("merged config does not parse as 3.2.0: %v %s", err, rpt)
			}
			if cfg.Ignition.Version != tc.version {
				t.Errorf("version %s, want %s", cfg.Ignition.Version, tc.version)
			}
			fs := files(cfg)
			if strings.Contains(tc.override, "/etc/extra") {
				if _, ok := fs["/etc/extra"]; !ok || !slices.Contains(units(cfg), "agent.service") {
					t.Error("merged config lacks the override's file or the template's units")
				}
			}
			if strings.Contains(tc.override, "mine") && fs["/etc/motd"] != "data:,mine" {
				t.Errorf("motd = %.40s, want the override's", fs["/etc/motd"])
			}
		})
	}
}

func TestDiscoveryIgnitionIsDeterministic(t *testing.T) {
	sel := map[string]any{"nmStateConfigLabelSelector": map[string]any{"matchLabels": map[string]any{"l": "a"}}}
	var nm []*render.Object
	for i := range 6 {
		nm = append(nm, nmState("ns", fmt.Sprintf("h%d", i), map[string]any{"l": "a"}, fmt.Sprintf("192.0.2.%d", 10+i),
			fmt.Sprintf("0a:00:00:00:%02x:01", i), fmt.Sprintf("0a:00:00:00:%02x:02", i)))
	}
	first, err := render.DiscoveryIgnition(infraEnv(sel), nm)
	if err != nil {
		t.Fatal(err)
	}
	rev := slices.Clone(nm)
	slices.Reverse(rev)
	second, err := render.DiscoveryIgnition(infraEnv(sel), rev)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.JSON, second.JSON) {
		t.Error("the order of the NMStateConfigs changes the config")
	}
	other := infraEnv(sel)
	other.Name = "site-b"
	third, _ := render.DiscoveryIgnition(other, nm)
	if bytes.Equal(first.JSON, third.JSON) {
		t.Error("two InfraEnvs get the same config: the InfraEnv id is missing")
	}
}

// TestDiscoveryRelease builds configs into the buffers of released ones,
// larger and smaller: each is the config built into a fresh buffer.
func TestDiscoveryRelease(t *testing.T) {
	sel := map[string]any{"nmStateConfigLabelSelector": map[string]any{"matchLabels": map[string]any{"l": "a"}}}
	var nm []*render.Object
	for i := range 8 {
		nm = append(nm, nmState("ns", fmt.Sprintf("h%d", i), map[string]any{"l": "a"}, fmt.Sprintf("192.0.2.%d", 10+i),
			fmt.Sprintf("0a:00:00:00:%02x:01", i)))
	}
	var want [][]byte
	for n := range len(nm) + 1 {
		d, err := render.DiscoveryIgnition(infraEnv(sel), nm[:n])
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, bytes.Clone(d.JSON))
	}
	for _, n := range []int{8, 0, 3, 8, 1, 5, 8} {
		d, err := render.DiscoveryIgnition(infraEnv(sel), nm[:n])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(d.JSON, want[n]) {
			t.Fatalf("the config of %d NMStateConfigs built after a release differs from the one built before", n)
		}
		d.Release()
		if d.JSON != nil {
			t.Fatal("a released config keeps its JSON")
		}
	}
}

// TestDiscoveryArchive checks the archive against its definition: a gzip
// stream of a newc cpio archive with config.ign, and the bound.
func TestDiscoveryArchive(t *testing.T) {
	random := make([]byte, 150_000)
	rand.Read(random)
	for _, tc := range []struct {
		name     string
		override string
	}{
		{name: "template only"},
		{name: "incompressible override", override: fmt.Sprintf(
			`{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/etc/blob","contents":{"source":"data:;base64,%s"}}]}}`,
			base64.StdEncoding.EncodeToString(random))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := map[string]any{}
			if tc.override != "" {
				spec["ignitionConfigOverride"] = tc.override
			}
			d, err := render.DiscoveryIgnition(infraEnv(spec), nil)
			if err != nil {
				t.Fatal(err)
			}
			size, bound := d.ArchiveSize(), d.ArchiveSizeBound()
			if size > bound || size <= 0 {
				t.Fatalf("archive %d bytes, bound %d", size, bound)
			}
			t.Logf("config %d bytes, archive %d bytes, bound %d", len(d.JSON), size, bound)
			if tc.override != "" && size < len(random) {
				t.Errorf("archive of %d random bytes is %d bytes: it cannot compress them", len(random), size)
			}
			if tc.override == "" && size > len(d.JSON)/2 {
				t.Errorf("archive %d bytes for a %d-byte config: the template should compress", size, len(d.JSON))
			}
		})
	}
	// The archive itself, decompressed.
	d, _ := render.DiscoveryIgnition(infraEnv(map[string]any{}), nil)
	var buf bytes.Buffer
	render.WriteIgnitionArchive(&buf, d)
	if buf.Len() != d.ArchiveSize() {
		t.Fatalf("written %d bytes, ArchiveSize %d", buf.Len(), d.ArchiveSize())
	}
	zr, err := gzip.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	hdr := string(raw[:110])
	if !strings.HasPrefix(hdr, "070701") || hdr[14:22] != "000081a4" || string(raw[110:120]) != "config.ign" {
		t.Fatalf("header %q", hdr)
	}
	var size int
	fmt.Sscanf(hdr[54:62], "%x", &size)
	if size != len(d.JSON) {
		t.Errorf("entry size %d, config %d", size, len(d.JSON))
	}
	start := 124 // 110 + "config.ign\x00" padded to 4
	if !bytes.Equal(raw[start:start+len(d.JSON)], d.JSON) {
		t.Error("archive entry is not the config")
	}
	if !bytes.Contains(raw[start+len(d.JSON):], []byte("TRAILER!!!")) {
		t.Error("no trailer")
	}
}

// TestDiscoveryGrowsWithNMStateConfigs measures how the archive grows per
// NMStateConfig, for the limit assisted-service documents (about 3,960
// NMStateConfigs per InfraEnv).
func TestDiscoveryGrowsWithNMStateConfigs(t *testing.T) {
	sel := map[string]any{"nmStateConfigLabelSelector": map[string]any{"matchLabels": map[string]any{"l": "a"}}}
	size := func(n int) int {
		var nm []*render.Object
		for i := range n {
			// NICs of one vendor: a common prefix, the rest as random as
			// the hardware's.
			h := sha256.Sum256([]byte{byte(i), byte(i >> 8)})
			nm = append(nm, nmState("ns", fmt.Sprintf("h%d", i), map[string]any{"l": "a"},
				fmt.Sprintf("10.%d.%d.%d", i/65536, i/256%256, i%256), fmt.Sprintf("b4:96:91:%02x:%02x:%02x", h[0], h[1], h[2])))
		}
		d, err := render.DiscoveryIgnition(infraEnv(sel), nm)
		if err != nil {
			t.Fatal(err)
		}
		return d.ArchiveSize()
	}
	base, hundred, thousand := size(0), size(100), size(1000)
	per := (thousand - hundred) / 900
	t.Logf("archive: %d bytes with no NMStateConfig, %d with 100, %d with 1000: %d bytes per NMStateConfig, about %d fit under the limit",
		base, hundred, thousand, per, (render.DiscoveryIgnitionLimit-base)/per)
	if !(base < hundred && hundred < thousand) {
		t.Fatalf("sizes do not grow: %d, %d, %d", base, hundred, thousand)
	}
	if n := (render.DiscoveryIgnitionLimit - base) / per; n < 1000 || n > 20000 {
		t.Errorf("about %d single-NIC NMStateConfigs fit under the limit; assisted-service documents about 3,960", n)
	}
}

// BenchmarkDiscoveryIgnition builds and measures the discovery Ignition
// of a four-node dual-stack site, as a check does once per InfraEnv.
func BenchmarkDiscoveryIgnition(b *testing.B) {
	t := &testing.T{}
	bundle := exampleBundle(t, "tidewater-ds-01")
	var ie *render.Object
	var nm []*render.Object
	for _, o := range bundle.Objects {
		switch o.Kind {
		case render.KindInfraEnv:
			ie = o
		case render.KindNMStateConfig:
			nm = append(nm, o)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		d, err := render.DiscoveryIgnition(ie, nm)
		if err != nil || d.ArchiveSizeBound() < len(d.JSON) {
			b.Fatal(err)
		}
		d.Release() // as a check does once the size is read
	}
}

// TestDiscoveryJSONIsEncodingJSON checks that the served config is
// json.Marshal of the config, byte for byte, for every option the
// builder reads and for strings encoding/json escapes.
func TestDiscoveryJSONIsEncodingJSON(t *testing.T) {
	sel := map[string]any{"l": "a"}
	withSel := func(spec map[string]any) map[string]any {
		spec["nmStateConfigLabelSelector"] = map[string]any{"matchLabels": sel}
		return spec
	}
	hosts := []*render.Object{
		nmState("ns", "h0", sel, "192.0.2.10", "0a:00:00:00:00:01"),
		nmState("ns", "h1", sel, "192.0.2.11", "0a:00:00:00:01:01", "0a:00:00:00:01:02"),
	}
	for _, tc := range []struct {
		name string
		spec map[string]any
		nm   []*render.Object
	}{
		{name: "bare", spec: map[string]any{}},
		{name: "static network", spec: withSel(map[string]any{}), nm: hosts},
		{name: "every option", spec: withSel(map[string]any{
			"sshAuthorizedKey":      "ssh-ed25519 AAAAone a@x\nssh-ed25519 AAAAtwo b@x\n",
			"proxy":                 map[string]any{"httpProxy": "http://p.example.net:3128", "httpsProxy": "http://p.example.net:3129", "noProxy": "10.0.0.0/8,.example.net"},
			"additionalNTPSources":  []any{"ntp1.example.net", "192.0.2.3"},
			"additionalTrustBundle": "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
		}), nm: hosts},
		{name: "https proxy only", spec: map[string]any{"proxy": map[string]any{"httpsProxy": "http://p.example.net:3129"}}},
		{name: "strings encoding/json escapes", spec: map[string]any{
			"sshAuthorizedKey": "ssh-ed25519 <AAAA&one> \"a\"@x\\ \u2028 \x01 \xff",
			"proxy":            map[string]any{"httpProxy": "http://u:p%40&<>@p.example.net", "noProxy": "a<b,\u2029c"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := render.DiscoveryIgnition(infraEnv(tc.spec), tc.nm)
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(d.Config)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(d.JSON, want) {
				i := 0
				for i < len(want) && i < len(d.JSON) && want[i] == d.JSON[i] {
					i++
				}
				t.Fatalf("JSON differs from json.Marshal at byte %d:\n got %.120q\nwant %.120q", i, d.JSON[i:], want[i:])
			}
		})
	}
}

// TestQuoteJSONIsEncodingJSON checks the discovery config's string
// quoting against encoding/json on every byte, the runes it escapes and
// invalid UTF-8.
func TestQuoteJSONIsEncodingJSON(t *testing.T) {
	cases := []string{"", "plain text", "a\u2028b\u2029c\u2027", "é ✓ 😀", "\xff\xfe", "\xe2\x80", "a\xc3", "<script>&amp;</script>"}
	for c := range 256 {
		cases = append(cases, string([]byte{byte(c)}), "x"+string([]byte{byte(c)})+"y")
	}
	for _, s := range cases {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := render.QuoteJSON(s); got != string(want) {
			t.Errorf("QuoteJSON(%q) = %s, json.Marshal gives %s", s, got, want)
		}
	}
}

// FuzzQuoteJSON compares the discovery config's string quoting with
// encoding/json on any string.
func FuzzQuoteJSON(f *testing.F) {
	f.Add("a<b>&\"\\\n\x00\u2028\xff")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := render.QuoteJSON(s); got != string(want) {
			t.Errorf("QuoteJSON(%q) = %s, json.Marshal gives %s", s, got, want)
		}
	})
}
