package tomap

// Prune names keys to leave out of an object, at any depth: a tree whose
// nodes are keys. A writer that walks typed values (internal/yamlenc's
// AppendTypedPruned) applies the same tree as Apply does to a converted
// value, so that both give the same object.
type Prune struct {
	// Keys holds the pruning of the keys of this node's value, when it is
	// an object.
	Keys map[string]*Prune
	// Omit leaves the key out whatever its value.
	Omit bool
	// Replace writes Value for the key in place of the object's own
	// value, when the object has the key. Value is a JSON-compatible
	// value (what Convert gives, or a decoded free-form document); it is
	// not copied.
	Replace bool
	Value   any
	// Drop, when set, is asked about the key's value as Convert gives it,
	// once the keys below are pruned: true leaves the key out.
	Drop func(v any) bool
}

// Replacing is the value p puts in at path (keys from p's node down),
// and whether it puts one there.
func (p *Prune) Replacing(path ...string) (any, bool) {
	for _, k := range path {
		if p == nil {
			return nil, false
		}
		p = p.Keys[k]
	}
	if p == nil || !p.Replace {
		return nil, false
	}
	return p.Value, true
}

// Apply prunes v, a value Convert gave, in place, and returns it. The keys
// of a node are pruned before the node's own Drop is asked about it, so a
// mapping whose keys were all left out can be left out in turn.
func (p *Prune) Apply(v any) any { return p.apply(v, false) }

// ApplyCopying is Apply with each replacing value put in as a copy, for a
// value whose reader may change it.
func (p *Prune) ApplyCopying(v any) any { return p.apply(v, true) }

func (p *Prune) apply(v any, copying bool) any {
	m, ok := v.(map[string]any)
	if !ok || p == nil {
		return v
	}
	for k, child := range p.Keys {
		sub, found := m[k]
		if !found {
			continue
		}
		if child.Omit {
			delete(m, k)
			continue
		}
		if child.Replace {
			m[k] = child.Value
			if copying {
				m[k] = Copy(child.Value)
			}
			continue
		}
		sub = child.apply(sub, copying)
		if child.Drop != nil && child.Drop(sub) {
			delete(m, k)
			continue
		}
		m[k] = sub
	}
	return v
}

// Zero is a Drop for the fields an upstream Go type writes even when they
// are zero: null, false, "", or a mapping of nothing but such mappings.
func Zero(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case bool:
		return !v
	case string:
		return v == ""
	case map[string]any:
		for _, sub := range v {
			if m, ok := sub.(map[string]any); !ok || !Zero(m) {
				return false
			}
		}
		return true
	}
	return false
}
