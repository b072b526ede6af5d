package plan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

func TestDiffContent(t *testing.T) {
	tests := []struct {
		name string
		kind string
		a, b map[string]any
		want []FieldChange
	}{
		{"same", "ConfigMap", map[string]any{"data": map[string]any{"k": "v"}}, map[string]any{"data": map[string]any{"k": "v"}}, nil},
		{"changed value", "BareMetalHost",
			map[string]any{"spec": map[string]any{"bmc": map[string]any{"address": "redfish://a"}}},
			map[string]any{"spec": map[string]any{"bmc": map[string]any{"address": "redfish://b"}}},
			[]FieldChange{{Path: "spec.bmc.address", Old: `"redfish://a"`, New: `"redfish://b"`}}},
		{"list grows", "AgentClusterInstall",
			map[string]any{"spec": map[string]any{"n": []any{"a"}}}, map[string]any{"spec": map[string]any{"n": []any{"a", 2.0}}},
			[]FieldChange{{Path: "spec.n[1]", New: "2"}}},
		{"field removed", "InfraEnv", map[string]any{"spec": map[string]any{"x": true}}, map[string]any{"spec": map[string]any{}},
			[]FieldChange{{Path: "spec.x", Old: "true"}}},
		{"secret data", "Secret",
			map[string]any{"metadata": map[string]any{"name": "s"}, "data": map[string]any{"password": "czNjcmV0"}, "type": "Opaque"},
			map[string]any{"metadata": map[string]any{"name": "s"}, "data": map[string]any{"password": "bjN3"}, "type": "Opaque"},
			[]FieldChange{{Path: "data.password", Old: hidden, New: hidden, Hidden: true}}},
		{"secret-like field of any kind", "AgentClusterInstall",
			map[string]any{"spec": map[string]any{"ignitionConfigOverride": `{"passwd":"x"}`, "pullSecretRef": map[string]any{"name": "ps"}}},
			map[string]any{"spec": map[string]any{"ignitionConfigOverride": `{"passwd":"y"}`, "pullSecretRef": map[string]any{"name": "ps2"}}},
			[]FieldChange{{Path: "spec.ignitionConfigOverride", Old: hidden, New: hidden, Hidden: true},
				{Path: "spec.pullSecretRef.name", Old: `"ps"`, New: `"ps2"`}}},
		{"a secret inside a value added whole", "ConfigMap",
			map[string]any{}, map[string]any{"data": map[string]any{"user": "u", "token": "t0k3n"}},
			[]FieldChange{{Path: "data", New: `{"token":"(hidden)","user":"u"}`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := diffContent(tt.kind, tt.a, tt.b)
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(tt.want)
			if string(g) != string(w) {
				t.Errorf("got  %s\nwant %s", g, w)
			}
		})
	}
}

func bundle(site string, objs ...*render.Object) *render.Bundle {
	return &render.Bundle{Site: site, Objects: objs}
}

func obj(kind, name string, content map[string]any) *render.Object {
	return &render.Object{Kind: kind, Namespace: name, Name: name, Content: content}
}

// A plan lists sites added, removed, changed and broken, leaves the
// unchanged ones out, keeps the change findings beside their site, and
// never prints a secret in any format.
func TestNewAndWrite(t *testing.T) {
	site := func(name, file string) *sites.Site {
		return &sites.Site{Name: name, Source: sites.Position{File: file, Line: 3}}
	}
	secret := func(v string) *render.Object {
		return obj("Secret", "bmc", map[string]any{"data": map[string]any{"password": v}})
	}
	base := Revision{Name: "main",
		Fleet: &sites.Fleet{Sites: []*sites.Site{site("a", "a.yaml"), site("b", "b.yaml"), site("c", "c.yaml"), site("d", "d.yaml")}},
		Bundles: map[string]*render.Bundle{
			"a": bundle("a", obj("ConfigMap", "a", map[string]any{"data": map[string]any{"k": "1"}}), secret("b2xkLXMzY3JldA==")),
			"b": bundle("b", obj("ConfigMap", "b", nil)),
			"c": bundle("c", obj("ConfigMap", "c", nil)),
			"d": bundle("d", obj("ConfigMap", "d", nil)),
		}}
	head := Revision{Name: "working tree",
		Fleet: &sites.Fleet{Sites: []*sites.Site{site("a", "a.yaml"), site("c", "c.yaml"), site("e", "e.yaml")},
			Problems: sites.Problems{{Pos: sites.Position{File: "d.yaml", Line: 9}, Severity: sites.SeverityError, Site: "d", Field: "spec.x", Message: "bad value"}}},
		Bundles: map[string]*render.Bundle{
			"a": bundle("a", obj("ConfigMap", "a", map[string]any{"data": map[string]any{"k": "2"}}), secret("bmV3LXMzY3JldA==")),
			"c": bundle("c", obj("ConfigMap", "c", nil)),
			"e": bundle("e", obj("ConfigMap", "e", nil)),
		}}
	findings := []report.Finding{
		{Rule: "change.immutable-field", Severity: report.Deny, Site: "a", Message: "immutable"},
		{Rule: "ztp.other", Severity: report.Warn, Site: "a", Message: "not a change rule"},
	}
	p := New(base, head, findings, "change.immutable-field")
	var got []string
	for _, s := range p.Sites {
		got = append(got, s.Site+":"+string(s.Change))
	}
	if strings.Join(got, " ") != "a:changed b:removed d:broken e:added" || p.Unchanged != 1 {
		t.Fatalf("sites %v, unchanged %d", got, p.Unchanged)
	}
	if a := p.Sites[0]; len(a.Findings) != 1 || len(a.Objects) != 2 || a.Objects[1].Fields[0].Path != "data.password" || !a.Objects[1].Fields[0].Hidden {
		t.Errorf("site a: %+v", a)
	}
	for _, f := range Formats() {
		var buf bytes.Buffer
		if err := Write(&buf, p, f); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, secret := range []string{"b2xkLXMzY3JldA", "bmV3LXMzY3JldA", "old-s3cret", "new-s3cret"} {
			if strings.Contains(out, secret) {
				t.Errorf("-o %s prints a secret:\n%s", f, out)
			}
		}
		for _, want := range []string{"data.password", "immutable", "bad value", "data.k"} {
			if !strings.Contains(out, want) {
				t.Errorf("-o %s lacks %q:\n%s", f, want, out)
			}
		}
		if strings.Contains(out, "not a change rule") {
			t.Errorf("-o %s shows a finding of another rule", f)
		}
	}
}

// Markdown from the repository can neither format the comment nor
// carry HTML.
func TestMarkdownEscapes(t *testing.T) {
	if got := md("a|b <script> `x` *y*\nz"); got != `a\|b &lt;script&gt; \`+"`"+`x\`+"`"+` \*y\* z` {
		t.Errorf("%q", got)
	}
}
