package crdschema

import (
	"cmp"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

const ns = "site1"

// minimal holds, per embedded CRD kind, the smallest object the hub
// accepts: required fields only, plus enough to exercise nested schemas.
var minimal = map[string]map[string]any{
	"hive.openshift.io/v1/ClusterDeployment": object("hive.openshift.io/v1", "ClusterDeployment", ns, "site1", map[string]any{
		"baseDomain":  "example.com",
		"clusterName": "site1",
		"platform": map[string]any{
			"agentBareMetal": map[string]any{"agentSelector": map[string]any{}},
		},
		"pullSecretRef": map[string]any{"name": "pull-secret"},
		"clusterInstallRef": map[string]any{
			"group":   "extensions.hive.openshift.io",
			"version": "v1beta1",
			"kind":    "AgentClusterInstall",
			"name":    "site1",
		},
	}),
	"hive.openshift.io/v1/ClusterImageSet": object("hive.openshift.io/v1", "ClusterImageSet", "", "img4.16.0", map[string]any{
		"releaseImage": "quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64",
	}),
	"extensions.hive.openshift.io/v1beta1/AgentClusterInstall": object("extensions.hive.openshift.io/v1beta1", "AgentClusterInstall", ns, "site1", map[string]any{
		"clusterDeploymentRef":  map[string]any{"name": "site1"},
		"imageSetRef":           map[string]any{"name": "img4.16.0"},
		"networking":            map[string]any{},
		"provisionRequirements": map[string]any{"controlPlaneAgents": 1},
	}),
	"agent-install.openshift.io/v1beta1/InfraEnv": object("agent-install.openshift.io/v1beta1", "InfraEnv", ns, "site1", map[string]any{
		"pullSecretRef": map[string]any{"name": "pull-secret"},
	}),
	"agent-install.openshift.io/v1beta1/NMStateConfig": object("agent-install.openshift.io/v1beta1", "NMStateConfig", ns, "node1", map[string]any{
		// config preserves unknown fields: any nmstate document is fine.
		"config": map[string]any{
			"interfaces": []any{map[string]any{"name": "eno1", "type": "ethernet", "state": "up"}},
		},
		"interfaces": []any{map[string]any{"name": "eno1", "macAddress": "aa:bb:cc:dd:ee:01"}},
	}),
	"agent-install.openshift.io/v1beta1/Agent": object("agent-install.openshift.io/v1beta1", "Agent", ns, "0b4a9d1e-8c2b-4e55-9d5a-1f0c1c6f6d21", map[string]any{
		"approved": true,
		"role":     "master",
	}),
	"agent-install.openshift.io/v1beta1/AgentClassification": object("agent-install.openshift.io/v1beta1", "AgentClassification", ns, "large", map[string]any{
		"labelKey":   "size",
		"labelValue": "large",
		"query":      ".inventory.cpu.count > 16",
	}),
	"metal3.io/v1alpha1/BareMetalHost": object("metal3.io/v1alpha1", "BareMetalHost", ns, "node1", map[string]any{
		"online":         true,
		"bootMACAddress": "aa:bb:cc:dd:ee:01",
		"bootMode":       "UEFI",
		"bmc": map[string]any{
			"address":         "redfish-virtualmedia://192.0.2.10/redfish/v1/Systems/1",
			"credentialsName": "node1-bmc",
		},
	}),
	"metal3.io/v1alpha1/HostFirmwareSettings": object("metal3.io/v1alpha1", "HostFirmwareSettings", ns, "node1", map[string]any{
		// additionalProperties: any setting name, int or string values.
		"settings": map[string]any{"ProcTurboMode": "Disabled", "LogicalProc": 1},
	}),
	"siteconfig.open-cluster-management.io/v1alpha1/ClusterInstance": object("siteconfig.open-cluster-management.io/v1alpha1", "ClusterInstance", ns, "site1", map[string]any{
		"baseDomain":             "example.com",
		"clusterName":            "site1",
		"clusterImageSetNameRef": "img4.16.0",
		"pullSecretRef":          map[string]any{"name": "pull-secret"},
		"templateRefs":           []any{map[string]any{"name": "ai-cluster-templates-v1", "namespace": "open-cluster-management"}},
		"nodes": []any{map[string]any{
			"hostName":           "node1.site1.example.com",
			"bmcAddress":         "redfish-virtualmedia://192.0.2.10/redfish/v1/Systems/1",
			"bmcCredentialsName": map[string]any{"name": "node1-bmc"},
			"bootMACAddress":     "aa:bb:cc:dd:ee:01",
			"templateRefs":       []any{map[string]any{"name": "ai-node-templates-v1", "namespace": "open-cluster-management"}},
		}},
	}),
}

func object(apiVersion, kind, namespace, name string, spec map[string]any) map[string]any {
	meta := map[string]any{"name": name}
	if namespace != "" {
		meta["namespace"] = namespace
	}
	return map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": meta, "spec": spec}
}

// from returns a deep copy of the minimal object for kind with edit applied,
// so that no case can leak into another through shared maps.
func from(kind string, edit func(o map[string]any)) map[string]any {
	base, ok := minimal[kind]
	if !ok {
		panic("no minimal object for " + kind)
	}
	data, err := json.Marshal(base)
	if err != nil {
		panic(err)
	}
	var o map[string]any
	if err := json.Unmarshal(data, &o); err != nil {
		panic(err)
	}
	if edit != nil {
		edit(o)
	}
	return o
}

// set sets a dotted path, creating maps on the way.
func set(o map[string]any, path string, value any) {
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		next, ok := o[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			o[k] = next
		}
		o = next
	}
	o[keys[len(keys)-1]] = value
}

// del deletes a dotted path.
func del(o map[string]any, path string) {
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		o = o[k].(map[string]any)
	}
	delete(o, keys[len(keys)-1])
}

// fieldErrors unwraps the joined error returned by Validate.
func fieldErrors(t *testing.T, err error) []*FieldError {
	t.Helper()
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("error is not a joined list of field errors: %v", err)
	}
	var out []*FieldError
	for _, e := range joined.Unwrap() {
		var fe *FieldError
		if !errors.As(e, &fe) {
			t.Fatalf("error %q is not a *FieldError", e)
		}
		out = append(out, fe)
	}
	return out
}

func load(t *testing.T, opts ...Option) *Validator {
	t.Helper()
	v, err := Load(opts...)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return v
}

// TestMinimalPerKind proves that every embedded CRD kind has a minimal
// object here and that it validates, so that adding a CRD without a test
// object fails.
func TestMinimalPerKind(t *testing.T) {
	v := load(t)
	kinds := v.Kinds()
	for kind := range minimal {
		if !slices.Contains(kinds, kind) {
			t.Errorf("minimal object for %s, but the validator does not know that kind; it knows %v", kind, kinds)
		}
	}
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			if _, ok := minimal[kind]; !ok {
				t.Fatalf("no minimal object for %s", kind)
			}
			if err := v.Validate(from(kind, nil)); err != nil {
				t.Errorf("minimal %s does not validate:\n%v", kind, err)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	v := load(t,
		WithoutSchema("v1/Namespace", "cluster.open-cluster-management.io/v1/ManagedCluster"),
		WithoutSchemaScope(apiextensionsv1.NamespaceScoped, "v1/ConfigMap", "agent.open-cluster-management.io/v1/KlusterletAddonConfig"),
	)
	const (
		aci = "extensions.hive.openshift.io/v1beta1/AgentClusterInstall"
		bmh = "metal3.io/v1alpha1/BareMetalHost"
		cd  = "hive.openshift.io/v1/ClusterDeployment"
		ci  = "siteconfig.open-cluster-management.io/v1alpha1/ClusterInstance"
		cis = "hive.openshift.io/v1/ClusterImageSet"
		hfs = "metal3.io/v1alpha1/HostFirmwareSettings"
		ie  = "agent-install.openshift.io/v1beta1/InfraEnv"
		nmc = "agent-install.openshift.io/v1beta1/NMStateConfig"
	)

	tests := []struct {
		name string
		obj  map[string]any
		// wantFields are the field paths that must be reported, in order
		// (Validate sorts them); nil means the object must validate.
		wantFields []string
		// wantMsg, if set, must appear in the error message.
		wantMsg string
	}{
		// Objects the hub accepts.
		{
			name: "preserve-unknown-fields subtree accepts any content",
			obj: from(nmc, func(o map[string]any) {
				set(o, "spec.config.dns-resolver.config.server", []any{"192.0.2.53"})
			}),
		},
		{
			name: "status is discarded on create and not checked",
			obj: from(bmh, func(o map[string]any) {
				o["status"] = map[string]any{"operationalStatus": "bogus", "bogus": true}
			}),
		},
		{
			name: "required field with a schema default is filled in",
			obj: from(ci, func(o map[string]any) {
				set(o, "spec.reinstall.generation", "1")
			}),
		},
		{
			name: "null creationTimestamp from typed objects is harmless",
			obj: from(ie, func(o map[string]any) {
				set(o, "metadata.creationTimestamp", nil)
				set(o, "metadata.labels", map[string]any{"app": "siteops"})
			}),
		},
		{
			name: "null in an optional field means unset",
			obj: from(bmh, func(o map[string]any) {
				set(o, "spec.rootDeviceHints", nil)
				set(o, "spec.userData", nil)
			}),
		},
		{
			name: "without-schema kind gets metadata checks only",
			obj:  map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cm", "namespace": ns}, "data": map[string]any{"anything": "goes"}},
		},
		{
			name: "without-schema kind of unknown scope needs no namespace",
			obj:  map[string]any{"apiVersion": "cluster.open-cluster-management.io/v1", "kind": "ManagedCluster", "metadata": map[string]any{"name": "site1"}},
		},

		// Schema violations.
		{
			name:       "wrong type",
			obj:        from(aci, func(o map[string]any) { set(o, "spec.provisionRequirements.controlPlaneAgents", "1") }),
			wantFields: []string{"spec.provisionRequirements.controlPlaneAgents"},
			wantMsg:    "must be of type integer",
		},
		{
			name:       "missing required field",
			obj:        from(bmh, func(o map[string]any) { del(o, "spec.online") }),
			wantFields: []string{"spec.online"},
			wantMsg:    "Required value",
		},
		{
			name: "missing required field in array item",
			obj: from(ci, func(o map[string]any) {
				del(o["spec"].(map[string]any)["nodes"].([]any)[0].(map[string]any), "hostName")
			}),
			wantFields: []string{"spec.nodes[0].hostName"},
			wantMsg:    "Required value",
		},
		{
			name:       "enum violation",
			obj:        from(bmh, func(o map[string]any) { set(o, "spec.bootMode", "BIOS") }),
			wantFields: []string{"spec.bootMode"},
			wantMsg:    `Unsupported value: "BIOS"`,
		},
		{
			name: "pattern violation",
			obj: from(nmc, func(o map[string]any) {
				o["spec"].(map[string]any)["interfaces"].([]any)[0].(map[string]any)["macAddress"] = "aa-bb-cc-dd-ee-01"
			}),
			wantFields: []string{"spec.interfaces[0].macAddress"},
			wantMsg:    "should match",
		},
		{
			name: "additionalProperties value of wrong type",
			obj:  from(hfs, func(o map[string]any) { set(o, "spec.settings.ProcTurboMode", true) }),
			// The anyOf validator reports once for the object as a whole
			// (naming the field in the message) and once per branch.
			wantFields: []string{"", "spec.settings.ProcTurboMode", "spec.settings.ProcTurboMode"},
			wantMsg:    `"spec.settings.ProcTurboMode" must validate at least one schema (anyOf)`,
		},
		{
			// The API server drops the null before validating, so the field
			// is then missing.
			name:       "null for a required object (typed HostFirmwareSettings with nil Settings)",
			obj:        from(hfs, func(o map[string]any) { set(o, "spec.settings", nil) }),
			wantFields: []string{"spec.settings"},
			wantMsg:    "Required value",
		},
		{
			name: "CEL rule violation",
			obj: from(cd, func(o map[string]any) {
				set(o, "spec.ingress", []any{map[string]any{
					"name": "default", "domain": "apps.site1.example.com",
					"tuningOptions": map[string]any{"maxConnections": 5},
				}})
			}),
			wantFields: []string{"spec.ingress[0].tuningOptions.maxConnections"},
			wantMsg:    "maxConnections must be 0, -1, or between 2000 and 2000000",
		},

		// Fields the hub would drop silently.
		{
			name:       "unknown field",
			obj:        from(bmh, func(o map[string]any) { set(o, "spec.bogus", "x") }),
			wantFields: []string{"spec.bogus"},
			wantMsg:    "unknown field",
		},
		{
			name: "unknown nested field in array item",
			obj: from(ci, func(o map[string]any) {
				o["spec"].(map[string]any)["nodes"].([]any)[0].(map[string]any)["bootMacAddress"] = "aa:bb:cc:dd:ee:01"
			}),
			wantFields: []string{"spec.nodes[0].bootMacAddress"},
			wantMsg:    "unknown field",
		},
		{
			name:       "unknown top-level field",
			obj:        from(ie, func(o map[string]any) { o["data"] = map[string]any{"x": "y"} }),
			wantFields: []string{"data"},
		},
		{
			name:       "unknown metadata field",
			obj:        from(ie, func(o map[string]any) { set(o, "metadata.lables", map[string]any{"a": "b"}) }),
			wantFields: []string{"metadata.lables"},
			wantMsg:    "unknown field",
		},
		{
			name:       "server-set metadata field",
			obj:        from(ie, func(o map[string]any) { set(o, "metadata.resourceVersion", "12345") }),
			wantFields: []string{"metadata.resourceVersion"},
		},

		// Metadata.
		{
			name:       "namespaced kind without namespace",
			obj:        from(ie, func(o map[string]any) { del(o, "metadata.namespace") }),
			wantFields: []string{"metadata.namespace"},
			wantMsg:    "Required value",
		},
		{
			name:       "cluster-scoped kind with namespace",
			obj:        from(cis, func(o map[string]any) { set(o, "metadata.namespace", ns) }),
			wantFields: []string{"metadata.namespace"},
			wantMsg:    "not allowed",
		},
		{
			name:       "missing name",
			obj:        from(bmh, func(o map[string]any) { del(o, "metadata.name") }),
			wantFields: []string{"metadata.name"},
			wantMsg:    "Required value",
		},
		{
			name:       "name not a DNS-1123 subdomain",
			obj:        from(bmh, func(o map[string]any) { set(o, "metadata.name", "Node_1") }),
			wantFields: []string{"metadata.name"},
			wantMsg:    "RFC 1123 subdomain",
		},
		{
			name:       "invalid label value",
			obj:        from(bmh, func(o map[string]any) { set(o, "metadata.labels", map[string]any{"role": "not a label value"}) }),
			wantFields: []string{"metadata.labels"},
		},
		{
			name:       "without-schema namespaced kind without namespace",
			obj:        map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cm"}},
			wantFields: []string{"metadata.namespace"},
		},
		{
			name:       "without-schema kind with invalid name",
			obj:        map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "Site_1"}},
			wantFields: []string{"metadata.name"},
		},

		// Every problem is reported, not just the first.
		{
			name: "several problems at once",
			obj: from(aci, func(o map[string]any) {
				set(o, "spec.provisionRequirements.controlPlaneAgents", "1")
				set(o, "spec.bogus", true)
				del(o, "metadata.namespace")
			}),
			wantFields: []string{"metadata.namespace", "spec.bogus", "spec.provisionRequirements.controlPlaneAgents"},
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := json.Marshal(tt.obj)
			err := v.Validate(tt.obj)
			if after, _ := json.Marshal(tt.obj); string(after) != string(before) {
				t.Errorf("Validate modified its argument:\nbefore %s\nafter  %s", before, after)
			}

			if tt.wantFields == nil {
				if err != nil {
					t.Fatalf("want no error, got:\n%v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("want errors for %v, got none", tt.wantFields)
			}
			var got []string
			for _, fe := range fieldErrors(t, err) {
				got = append(got, fe.Field)
				// The message must identify the object, so that a test
				// rendering dozens of objects points at the right one.
				kind, _ := tt.obj["kind"].(string)
				if !strings.HasPrefix(fe.Error(), kind+" ") || !strings.Contains(fe.Error(), ": "+cmp.Or(fe.Field, "<root>")+": ") {
					t.Errorf("message %q does not read %q", fe.Error(), "<kind> <namespace>/<name>: <field>: <message>")
				}
			}
			if !slices.Equal(got, tt.wantFields) {
				t.Errorf("reported fields %q, want %q; error:\n%v", got, tt.wantFields, err)
			}
			if tt.wantMsg != "" && !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error does not mention %q:\n%v", tt.wantMsg, err)
			}
		})
	}
}

func TestValidateMessageFormat(t *testing.T) {
	v := load(t)
	err := v.Validate(from("metal3.io/v1alpha1/BareMetalHost", func(o map[string]any) { set(o, "spec.bogus", "x") }))
	want := "BareMetalHost site1/node1: spec.bogus: unknown field: the API server would prune it silently"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}

	err = v.Validate(from("hive.openshift.io/v1/ClusterImageSet", func(o map[string]any) { set(o, "spec.bogus", "x") }))
	want = "ClusterImageSet img4.16.0: spec.bogus: unknown field: the API server would prune it silently"
	if err == nil || err.Error() != want {
		t.Errorf("cluster-scoped: got %v, want %q", err, want)
	}
}

func TestValidateUnknownKind(t *testing.T) {
	v := load(t, WithoutSchema("v1/ConfigMap"))
	tests := []struct {
		name string
		obj  map[string]any
		want string
	}{
		{
			name: "kind without CRD",
			obj:  object("apps/v1", "Deployment", ns, "d", nil),
			want: "no CRD for apps/v1 Deployment",
		},
		{
			name: "version not served",
			obj:  object("hive.openshift.io/v2", "ClusterDeployment", ns, "site1", nil),
			want: "no CRD for hive.openshift.io/v2 ClusterDeployment",
		},
		{
			name: "core kind not declared without schema",
			obj:  object("v1", "Secret", ns, "s", nil),
			want: "no CRD for v1 Secret",
		},
		{
			name: "no kind",
			obj:  map[string]any{"apiVersion": "v1", "metadata": map[string]any{"name": "x"}},
			want: "no apiVersion or kind",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.Validate(tt.obj)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}

// TestValidateConcurrent backs the claim that a Validator is safe for
// concurrent use: renderers validate many objects in parallel tests. Run
// with -race to make it meaningful.
func TestValidateConcurrent(t *testing.T) {
	v := load(t)
	var wg sync.WaitGroup
	for range 4 {
		for kind := range minimal {
			wg.Go(func() {
				if err := v.Validate(from(kind, nil)); err != nil {
					t.Errorf("%s: %v", kind, err)
				}
				if err := v.Validate(from(kind, func(o map[string]any) { set(o, "spec.bogus", 1) })); err == nil {
					t.Errorf("%s: spec.bogus not reported", kind)
				}
			})
		}
	}
	wg.Wait()
}

func TestLoadOptions(t *testing.T) {
	tests := []struct {
		name    string
		opts    []Option
		wantErr string
	}{
		{name: "no options"},
		{name: "core and group kinds", opts: []Option{WithoutSchema("v1/Namespace", "agent.open-cluster-management.io/v1/KlusterletAddonConfig")}},
		{name: "malformed kind", opts: []Option{WithoutSchema("ConfigMap")}, wantErr: "apiVersion/Kind"},
		{name: "kind that has a CRD", opts: []Option{WithoutSchema("metal3.io/v1alpha1/BareMetalHost")}, wantErr: "has a CRD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Load(tt.opts...)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				if len(v.Kinds()) < len(minimal) {
					t.Errorf("Kinds() = %v, want at least the %d embedded kinds", v.Kinds(), len(minimal))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("got %v, want error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestKinds(t *testing.T) {
	v := load(t, WithoutSchema("v1/Namespace"))
	got := v.Kinds()
	if !slices.IsSorted(got) {
		t.Errorf("Kinds() not sorted: %v", got)
	}
	for _, want := range []string{"v1/Namespace", "metal3.io/v1alpha1/BareMetalHost", "hive.openshift.io/v1/ClusterDeployment"} {
		if !slices.Contains(got, want) {
			t.Errorf("Kinds() = %v, missing %s", got, want)
		}
	}
}
