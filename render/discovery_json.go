package render

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/coreos/ignition/v2/config/v3_2/types"
)

// builtConfigJSON is json.Marshal(cfg), byte for byte, for a config
// discoveryBuilder made and no override changed: only the fields the
// builder sets are written, and the empty structs encoding/json writes
// despite omitempty (ignition.config, security, timeouts, a file's group
// and its contents' verification) are written as constants, in the
// order of the fields of coreos/ignition config/v3_2/types/schema.go. Without
// reflection it costs less than json.Marshal. A config from
// elsewhere goes through json.Marshal (DiscoveryIgnition).
func builtConfigJSON(cfg *types.Config) []byte {
	n := 256
	for _, f := range cfg.Storage.Files {
		if f.Contents.Source != nil {
			n += len(*f.Contents.Source) + len(f.Path) + 128
		}
	}
	for _, u := range cfg.Systemd.Units {
		if u.Contents != nil {
			n += len(*u.Contents) + len(u.Name) + 64
		}
	}
	var b []byte
	if p, ok := jsonBuffers.Get().(*[]byte); ok && cap(*p) >= n {
		b = (*p)[:0]
	} else {
		b = make([]byte, 0, n+n/8)
	}

	b = append(b, `{"ignition":{"config":{"replace":{"verification":{}}},"proxy":{`...)
	px := &cfg.Ignition.Proxy
	comma := false
	field := func(name string) {
		if comma {
			b = append(b, ',')
		}
		comma = true
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":`...)
	}
	if px.HTTPProxy != nil {
		field("httpProxy")
		b = appendJSONString(b, *px.HTTPProxy)
	}
	if px.HTTPSProxy != nil {
		field("httpsProxy")
		b = appendJSONString(b, *px.HTTPSProxy)
	}
	if len(px.NoProxy) > 0 {
		field("noProxy")
		for i, p := range px.NoProxy {
			b = listSep(b, i)
			b = appendJSONString(b, string(p))
		}
		b = append(b, ']')
	}
	b = append(b, `},"security":{"tls":{}},"timeouts":{}`...)
	if v := cfg.Ignition.Version; v != "" {
		b = append(b, `,"version":`...)
		b = appendJSONString(b, v)
	}
	b = append(b, `},"passwd":{`...)
	b = appendList(b, `"users":`, cfg.Passwd.Users, appendUser)
	b = append(b, `},"storage":{`...)
	b = appendList(b, `"files":`, cfg.Storage.Files, appendFile)
	b = append(b, `},"systemd":{`...)
	b = appendList(b, `"units":`, cfg.Systemd.Units, appendUnit)
	return append(b, "}}"...)
}

// appendUser writes the builder's user: name, password hash, groups and
// keys, in the order of types.PasswdUser's fields.
func appendUser(b []byte, u *types.PasswdUser) []byte {
	b = append(b, '{')
	if len(u.Groups) > 0 {
		b = append(b, `"groups":`...)
		for i, g := range u.Groups {
			b = listSep(b, i)
			b = appendJSONString(b, string(g))
		}
		b = append(b, "],"...)
	}
	b = append(b, `"name":`...)
	b = appendJSONString(b, u.Name)
	if u.PasswordHash != nil {
		b = append(b, `,"passwordHash":`...)
		b = appendJSONString(b, *u.PasswordHash)
	}
	if len(u.SSHAuthorizedKeys) > 0 {
		b = append(b, `,"sshAuthorizedKeys":`...)
		for i, k := range u.SSHAuthorizedKeys {
			b = listSep(b, i)
			b = appendJSONString(b, string(k))
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendFile writes the builder's file: overwrite, path, owner, contents
// and mode, in the order of types.File's embedded fields.
func appendFile(b []byte, f *types.File) []byte {
	b = append(b, `{"group":{}`...)
	if f.Overwrite != nil {
		b = append(b, `,"overwrite":`...)
		b = strconv.AppendBool(b, *f.Overwrite)
	}
	b = append(b, `,"path":`...)
	b = appendJSONString(b, f.Path)
	b = append(b, `,"user":{`...)
	if f.User.Name != nil {
		b = append(b, `"name":`...)
		b = appendJSONString(b, *f.User.Name)
	}
	b = append(b, `},"contents":{`...)
	if f.Contents.Source != nil {
		b = append(b, `"source":`...)
		b = appendJSONString(b, *f.Contents.Source)
		b = append(b, ',')
	}
	b = append(b, `"verification":{}}`...)
	if f.Mode != nil {
		b = append(b, `,"mode":`...)
		b = strconv.AppendInt(b, int64(*f.Mode), 10)
	}
	return append(b, '}')
}

// appendUnit writes the builder's unit: contents, enabled and name.
func appendUnit(b []byte, u *types.Unit) []byte {
	b = append(b, '{')
	if u.Contents != nil {
		b = append(b, `"contents":`...)
		b = appendJSONString(b, *u.Contents)
		b = append(b, ',')
	}
	if u.Enabled != nil {
		b = append(b, `"enabled":`...)
		b = strconv.AppendBool(b, *u.Enabled)
		b = append(b, ',')
	}
	b = append(b, `"name":`...)
	b = appendJSONString(b, u.Name)
	return append(b, '}')
}

// appendJSONString appends s quoted as encoding/json quotes it, which
// the served config's size depends on: with <, > and & escaped for HTML,
// control characters as their short escape or \u00XX, U+2028 and U+2029
// escaped, and each byte of invalid UTF-8 as \ufffd.
func appendJSONString(b []byte, s string) []byte {
	if len(s) >= minMemoJSON && len(s) <= maxMemoText {
		if q, ok := jsonStrings.lookup(s); ok {
			return append(b, q...)
		}
		if !jsonStrings.full() {
			q := string(quoteJSON(nil, s))
			jsonStrings.put(s, q)
			return append(b, q...)
		}
	}
	// Not remembered, nor to be: quoted where it goes.
	return quoteJSON(b, s)
}

// jsonStrings remembers the quoted form of the long strings every
// discovery config repeats: the template's scripts and units.
var jsonStrings = newMemo[string, string](256)

// minMemoJSON is the length from which a quoted string is remembered:
// quoting a shorter one costs less than looking it up.
const minMemoJSON = 256

// jsonPlain tells the ASCII bytes encoding/json copies as they are.
var jsonPlain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = !strings.ContainsRune(`"\<>&`, rune(c))
	}
	return t
}()

func quoteJSON(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	plain := 0 // s[plain:i] is copied as it is
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonPlain[c] {
				i++
				continue
			}
			b = append(b, s[plain:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, `\b`...)
			case '\f':
				b = append(b, `\f`...)
			case '\n':
				b = append(b, `\n`...)
			case '\r':
				b = append(b, `\r`...)
			case '\t':
				b = append(b, `\t`...)
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			plain = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[plain:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[plain:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		plain = i
	}
	b = append(b, s[plain:]...)
	return append(b, '"')
}

// appendList writes a non-empty list as the field key, as omitempty
// does, each element with add.
func appendList[E any](b []byte, key string, list []E, add func([]byte, *E) []byte) []byte {
	if len(list) == 0 {
		return b
	}
	b = append(b, key...)
	for i := range list {
		b = listSep(b, i)
		b = add(b, &list[i])
	}
	return append(b, ']')
}

// listSep opens a JSON list before its first element and separates the
// others.
func listSep(b []byte, i int) []byte {
	if i == 0 {
		return append(b, '[')
	}
	return append(b, ',')
}
