package plan

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// secretKinds are the kinds whose whole content below the top level is
// credentials.
var secretKinds = map[string]bool{"Secret": true}

// secretFieldWords mark a field whose value may be a credential, by a
// word in its name, compared without case. Installer inputs carry
// credentials under these names: a pull secret's .dockerconfigjson, a
// BMC password, tokens, private keys and passphrases, and the ignition
// and install-config overrides, free text that can embed any of them.
var secretFieldWords = []string{
	"password", "passwd", "token", "secret", "privatekey", "private_key", "passphrase", "credential",
	"dockerconfigjson", "kubeconfig", "ignitionconfigoverride", "installconfigoverrides", "apikey",
}

// secretPlainFields are names with a word of secretFieldWords that hold
// no credential, only the name of the Secret that does.
var secretPlainFields = []string{"pullsecretref", "bmccredentialsname", "credentialsname", "secretref", "name"}

// hidden stands for a value that is not shown.
const hidden = "(hidden)"

// isSecretField reports whether the value at field (its last key) may be
// a credential.
func isSecretField(key string) bool {
	k := strings.ToLower(key)
	if slices.Contains(secretPlainFields, k) {
		return false
	}
	for _, w := range secretFieldWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// FieldChange is one field that differs between two versions of an
// object. Old is empty when the field was added, New when it was
// removed; both are hidden when the field may hold a credential.
type FieldChange struct {
	Path string `json:"path"`
	Old  string `json:"old,omitempty"`
	New  string `json:"new,omitempty"`
	// Hidden is set when the values are not shown.
	Hidden bool `json:"hidden,omitempty"`
}

// maxValue bounds how much of a value a diff shows.
const maxValue = 120

// diffContent lists the fields that differ between a and b, objects of
// kind, in path order.
func diffContent(kind string, a, b map[string]any) []FieldChange {
	d := &differ{secretKind: secretKinds[kind]}
	d.walk("", a, b, false)
	return d.out
}

type differ struct {
	secretKind bool
	out        []FieldChange
}

func (d *differ) walk(path string, a, b any, secret bool) {
	am, aIsMap := a.(map[string]any)
	bm, bIsMap := b.(map[string]any)
	if aIsMap && bIsMap {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		slices.Sort(sorted)
		for _, k := range sorted {
			sub := k
			if path != "" {
				sub = path + "." + k
			}
			// A Secret's data and stringData are all credentials.
			s := secret || isSecretField(k) || d.secretKind && path == "" && k != "metadata" && k != "type"
			av, aok := am[k]
			bv, bok := bm[k]
			switch {
			case !aok:
				d.add(sub, nil, bv, s)
			case !bok:
				d.add(sub, av, nil, s)
			default:
				d.walk(sub, av, bv, s)
			}
		}
		return
	}
	al, aIsList := a.([]any)
	bl, bIsList := b.([]any)
	if aIsList && bIsList {
		for i := range max(len(al), len(bl)) {
			sub := path + "[" + strconv.Itoa(i) + "]"
			switch {
			case i >= len(al):
				d.add(sub, nil, bl[i], secret)
			case i >= len(bl):
				d.add(sub, al[i], nil, secret)
			default:
				d.walk(sub, al[i], bl[i], secret)
			}
		}
		return
	}
	if !equal(a, b) {
		d.add(path, a, b, secret)
	}
}

func (d *differ) add(path string, a, b any, secret bool) {
	c := FieldChange{Path: path, Hidden: secret}
	if secret {
		if a != nil {
			c.Old = hidden
		}
		if b != nil {
			c.New = hidden
		}
	} else {
		c.Old, c.New = show(redact(a)), show(redact(b))
	}
	d.out = append(d.out, c)
}

// redact is v with the values of its secret-like fields hidden, for a
// whole map or list added or removed at once.
func redact(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			if isSecretField(k) {
				out[k] = hidden
			} else {
				out[k] = redact(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = redact(e)
		}
		return out
	}
	return v
}

func equal(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// show is a value as compact JSON (a string bare), cut to maxValue.
func show(v any) string {
	if v == nil {
		return ""
	}
	var s string
	if str, ok := v.(string); ok {
		s = strconv.Quote(str)
	} else if data, err := json.Marshal(v); err == nil {
		s = string(data)
	} else {
		s = fmt.Sprint(v)
	}
	if r := []rune(s); len(r) > maxValue {
		s = string(r[:maxValue-1]) + "…"
	}
	return s
}
