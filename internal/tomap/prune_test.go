package tomap

import (
	"reflect"
	"testing"
)

func TestPruneApply(t *testing.T) {
	p := &Prune{Keys: map[string]*Prune{
		"status": {Omit: true},
		"spec": {Keys: map[string]*Prune{
			// The keys below are pruned first, so bmc is empty once
			// both are gone.
			"bmc":  {Drop: Zero, Keys: map[string]*Prune{"address": {Drop: Zero}, "name": {Drop: Zero}}},
			"flag": {Drop: Zero},
			"list": {Drop: Zero, Keys: map[string]*Prune{"x": {Omit: true}}},
		}},
		"absent": {Omit: true},
		"doc":    {Replace: true, Value: map[string]any{"free": []any{1, "a"}}, Drop: Zero},
		"none":   {Replace: true, Value: "x"},
	}}
	for _, c := range []struct {
		name     string
		in, want any
	}{
		{"all pruned",
			map[string]any{"status": map[string]any{"a": 1}, "spec": map[string]any{"bmc": map[string]any{"address": "", "name": nil}, "flag": false}},
			map[string]any{"spec": map[string]any{}}},
		{"a key below kept keeps its parent",
			map[string]any{"spec": map[string]any{"bmc": map[string]any{"address": "", "name": "n"}, "flag": true}},
			map[string]any{"spec": map[string]any{"bmc": map[string]any{"name": "n"}, "flag": true}}},
		{"keys below a list are not looked for",
			map[string]any{"spec": map[string]any{"list": []any{map[string]any{"x": 1}}}},
			map[string]any{"spec": map[string]any{"list": []any{map[string]any{"x": 1}}}}},
		{"a scalar where an object was pruned is left",
			map[string]any{"spec": "text"},
			map[string]any{"spec": "text"}},
		{"a key the object has is replaced, and not dropped",
			map[string]any{"doc": nil, "spec": map[string]any{}},
			map[string]any{"doc": map[string]any{"free": []any{1, "a"}}, "spec": map[string]any{}}},
		{"not an object", []any{1}, []any{1}},
	} {
		if got := p.Apply(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	var none *Prune
	if got := none.Apply(map[string]any{"a": 1}); !reflect.DeepEqual(got, map[string]any{"a": 1}) {
		t.Errorf("nil Prune changed the value: %v", got)
	}
}

// TestPruneApplyCopying checks that ApplyCopying prunes as Apply does and
// puts a copy of each replacing value in, at any depth.
func TestPruneApplyCopying(t *testing.T) {
	doc := map[string]any{"interfaces": []any{map[string]any{"name": "eth0"}}}
	p := &Prune{Keys: map[string]*Prune{
		"status": {Omit: true},
		"spec":   {Keys: map[string]*Prune{"config": {Replace: true, Value: doc}}},
	}}
	in := func() map[string]any {
		return map[string]any{"status": 1, "spec": map[string]any{"config": nil, "x": "y"}}
	}
	got, want := p.ApplyCopying(in()), p.Apply(in())
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ApplyCopying gives %v, Apply %v", got, want)
	}
	config := got.(map[string]any)["spec"].(map[string]any)["config"].(map[string]any)
	config["interfaces"].([]any)[0].(map[string]any)["name"] = "changed"
	if doc["interfaces"].([]any)[0].(map[string]any)["name"] != "eth0" {
		t.Error("changing the result changed the replacing value: it was not copied")
	}
}

func TestPruneReplacing(t *testing.T) {
	p := &Prune{Keys: map[string]*Prune{
		"spec":   {Keys: map[string]*Prune{"config": {Replace: true, Value: "doc"}, "other": {Omit: true}}},
		"status": {Omit: true},
	}}
	for _, c := range []struct {
		path []string
		want any
		ok   bool
	}{
		{[]string{"spec", "config"}, "doc", true},
		{[]string{"spec", "other"}, nil, false},
		{[]string{"spec", "missing"}, nil, false},
		{[]string{"spec", "config", "deeper"}, nil, false},
		{[]string{"spec"}, nil, false},
	} {
		if got, ok := p.Replacing(c.path...); got != c.want || ok != c.ok {
			t.Errorf("Replacing(%v) = %v, %v; want %v, %v", c.path, got, ok, c.want, c.ok)
		}
	}
	var none *Prune
	if _, ok := none.Replacing("spec"); ok {
		t.Error("a nil Prune replaces")
	}
}
