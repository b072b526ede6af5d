package blockyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/siteops/siteops/hack/fleetgen/gen"
)

// reference is what yaml.v3's Decoder reads from data: its documents, or
// the error it stops at.
func reference(data []byte) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return docs, err
		}
		docs = append(docs, &n)
	}
}

// diff describes the first difference between two trees, comments left
// out; "" when they are the same.
func diff(got, want *yaml.Node, path string) string {
	switch {
	case got.Kind != want.Kind, got.Style != want.Style, got.Tag != want.Tag, got.Value != want.Value,
		got.Anchor != want.Anchor, got.Line != want.Line, got.Column != want.Column, got.Alias != nil, want.Alias != nil:
		return fmt.Sprintf("%s: got {kind %d style %d tag %q value %q at %d:%d}, want {kind %d style %d tag %q value %q at %d:%d}",
			path, got.Kind, got.Style, got.Tag, got.Value, got.Line, got.Column,
			want.Kind, want.Style, want.Tag, want.Value, want.Line, want.Column)
	case len(got.Content) != len(want.Content):
		return fmt.Sprintf("%s: %d children, want %d", path, len(got.Content), len(want.Content))
	}
	for i := range got.Content {
		if d := diff(got.Content[i], want.Content[i], fmt.Sprintf("%s/%d", path, i)); d != "" {
			return d
		}
	}
	return ""
}

// check holds Parse to yaml.v3 on data, and reports whether Parse took it.
func check(t *testing.T, name string, data []byte) bool {
	t.Helper()
	got, ok := Parse(data)
	want, err := reference(data)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("%s: Parse took a text yaml.v3 refuses (%v):\n%s", name, err, data)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d documents, yaml.v3 reads %d:\n%s", name, len(got), len(want), data)
	}
	for i := range got {
		if d := diff(got[i], want[i], fmt.Sprintf("doc %d", i)); d != "" {
			t.Fatalf("%s: %s\n%s", name, d, data)
		}
	}
	// The slab is made for every node of the text at once, so that a
	// Parser's texts parse into the one slab it keeps.
	p := parser{src: string(data)}
	p.split()
	if n := nodes(got); n > p.slabSize {
		t.Fatalf("%s: %d nodes, over the %d the slab is made for:\n%s", name, n, p.slabSize, data)
	}
	return true
}

// nodes counts the nodes of documents, an alias once (not what it names).
func nodes(docs []*yaml.Node) int {
	n := 0
	for _, d := range docs {
		n += 1 + nodes(d.Content)
	}
	return n
}

func TestParseMatchesYAMLv3(t *testing.T) {
	tests := []struct {
		name, in string
		fast     bool // Parse must take it
	}{
		{"mapping", "a: 1\nb: x\n", true},
		{"nested", "a:\n  b:\n    c: d\n  e: f\ng: h\n", true},
		{"indentless sequence", "a:\n- x\n- y\nb: z\n", true},
		{"indented sequence", "a:\n  - x\n  -   y\n", true},
		{"mapping on the dash line", "l:\n  - name: a\n    v: 1\n  -   name: b\n      v: 2\n", true},
		{"nulls", "a:\nb:\n  - \n  -\n  - c\nd: # comment\n", true},
		{"nested sequence under a dash", "-\n  - a\n- b\n", true},
		{"comments and blanks", "# head\n\na: 1 # line\n  # inside\n\nb: '2' # q\n# foot\n", true},
		{"quoted", "a: 'it''s'\nb: \"02:9e:00\"\nc: ''\nd: \"\"\ne: 'x # y'\n", true},
		{"tags resolved", "a: 0644\nb: true\nc: yes\nd: ~\ne: null\nf: 1.5\ng: 2001-12-14\nh: .inf\ni: 0x1F\n", true},
		{"plain with colons and hashes", "u: http://h:80/x#y\nm: a:b\nn: -1\no: --flag\np: a,b[c]\n", true},
		{"documents", "a: 1\n---\nb: 2\n---\n- c\n", true},
		{"leading marker", "---\na: 1\n", true},
		{"no final newline", "a: 1", true},
		{"keys that are not strings", "1: a\ntrue: b\nnull: c\n", true},

		{"flow mapping", "a: {b: c}\n", false},
		{"flow sequence", "a: [b, c]\n", false},
		{"block scalar", "a: |\n  x\n", false},
		{"anchor and alias", "a: &x 1\nb: *x\n", false},
		{"merge key", "<<: {a: 1}\n", false},
		{"tag", "a: !!str 1\n", false},
		{"escape", "a: \"x\\ty\"\n", false},
		{"multi-line plain", "a: b\n  c\n", true},
		{"multi-line plain as yaml/v2 folds it", "spec:\n  sshPublicKey: ssh-ed25519 AAAAC3Nza\n    fleet@example.net\n  x: 1\n", true},
		{"multi-line plain in a sequence", "- a b\n  c\n   d\n- e\n", true},
		{"multi-line plain resolved as a string", "a: 1\n  2\nb: true\n  false\n", true},
		{"multi-line plain after a comment", "a: b # c\n  d\n", false},
		{"multi-line plain with a blank line", "a: b\n\n  c\n", false},
		{"multi-line plain with a comment line", "a: b\n  # c\n  d\n", false},
		{"multi-line plain with a comment", "a: b\n  c # d\n", false},
		{"multi-line plain with a key", "a: b\n  c: d\n", false},
		{"multi-line plain with a dash", "a: b\n  - c\n", false},
		{"multi-line plain ending in a colon", "a: b\n  c:\n", false},
		{"multi-line plain, quoted first", "a: 'b'\n  c\n", false},
		{"multi-line key", "a\n  b: c\n", false},
		{"multi-line quoted", "a: 'b\n  c'\n", false},
		{"tab", "a:\tb\n", false},
		{"carriage return", "a: b\r\n", false},
		{"non-ASCII", "a: é\n", false},
		{"empty document", "a: 1\n---\n", false},
		{"scalar document", "x\n", false},
		{"directive", "%YAML 1.2\n---\na: 1\n", false},
		{"compact nested sequence", "- - a\n", false},
		{"mapping value on one line", "a: b: c\n", false},
		{"bad indentation", "a:\n    b: 1\n  c: 2\n", false},
		{"sequence among keys", "a: 1\n- b\n", false},
		{"text after a quoted scalar", "a: 'b' c\n", false},
		{"long key", strings.Repeat("k", 1100) + ": v\n", false},
		{"key at the implicit-key limit", strings.Repeat("k", 1024) + ": v\n", true},
		{"key past the implicit-key limit", strings.Repeat("k", 1025) + ": v\n", false},
		{"empty", "", false},
		{"only comments", "# nothing\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if took := check(t, tt.name, []byte(tt.in)); took != tt.fast {
				t.Errorf("Parse took it: %v, want %v", took, tt.fast)
			}
		})
	}
}

// Every YAML file of the repository reads the same through both parsers
// (or is left to yaml.v3).
func TestParseRepositoryFiles(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	taken, files := 0, 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		if check(t, p, data) {
			taken++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 || taken == 0 {
		t.Fatalf("%d of %d YAML files read by Parse: the test proves nothing", taken, files)
	}
	t.Logf("%d of %d YAML files of the repository read by Parse", taken, files)
}

// Every file of every fleet layout hack/fleetgen writes is read by Parse,
// the same as by yaml.v3: the fast path is the one a generated fleet takes.
func TestParseFleetgenLayouts(t *testing.T) {
	for _, layout := range gen.Layouts() {
		for _, format := range gen.Formats() {
			if gen.CheckLayout(layout, format) != nil {
				continue
			}
			dir := t.TempDir()
			if _, err := gen.Generate(dir, gen.Config{Sites: 12, Shape: gen.ShapeMixed, Manifests: 20, Seed: 3, Layout: layout, Format: format}); err != nil {
				t.Fatal(err)
			}
			err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || strings.HasSuffix(p, ".tmpl") {
					return err
				}
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				if !check(t, p, data) {
					t.Errorf("%s/%s: Parse left %s to yaml.v3", layout, format, p)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Random documents built from the constructs that matter: where Parse
// takes one, it reads what yaml.v3 reads; it never takes one yaml.v3
// refuses.
func TestParseRandomDocuments(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 19))
	taken := 0
	const n = 20000
	for i := range n {
		var b strings.Builder
		randomBlock(rng, &b, 0, 0)
		if check(t, fmt.Sprintf("random %d", i), []byte(b.String())) {
			taken++
		}
	}
	if taken < n/10 {
		t.Fatalf("Parse took %d of %d random documents: the test proves little", taken, n)
	}
	t.Logf("Parse took %d of %d random documents", taken, n)
}

// TestParserReusesNodes parses random documents, large and small, one
// after the other with one Parser: each text's documents are what
// yaml.v3 reads, whatever the texts before it left in the nodes.
func TestParserReusesNodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 29))
	var ps Parser
	taken := 0
	for i := range 5000 {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			if b.Len() > 0 {
				b.WriteString("---\n")
			}
			randomBlock(rng, &b, 0, 0)
		}
		data := []byte(b.String())
		got, ok := ps.Parse(data)
		if !ok {
			continue
		}
		taken++
		want, err := reference(data)
		if err != nil || len(got) != len(want) {
			t.Fatalf("text %d: %d documents, yaml.v3 reads %d (%v)", i, len(got), len(want), err)
		}
		for j := range got {
			if d := diff(got[j], want[j], fmt.Sprintf("doc %d", j)); d != "" {
				t.Fatalf("text %d: %s\n%s", i, d, data)
			}
		}
	}
	if taken < 100 {
		t.Fatalf("Parse took %d texts: the test proves little", taken)
	}
	if cap(ps.slab) == 0 || cap(ps.lines) == 0 {
		t.Fatalf("the Parser kept %d nodes and %d lines for the next text, want some of both", cap(ps.slab), cap(ps.lines))
	}
	// The lines it keeps hold no piece of the last text.
	for i, l := range ps.lines[:cap(ps.lines)] {
		if l.text != "" {
			t.Fatalf("line buffer %d still holds %q", i, l.text)
		}
	}
}

var scalars = []string{"a", "x y", "1", "-1", "0644", "true", "yes", "~", "null", "", "''", `""`, "'it''s'", `"a:b"`,
	"http://h:1/p", "a#b", "a #c", "# c", "a: b", "a:", ":a", "-", "- a", "--x", "---", "...", "?x", "[a]", "{a}", "a,b",
	"&x", "*x", "!t", "|", ">", "%x", "@x", "'a", `"a`, "'a' b", "2001-01-01", "1.5e3", ".nan", "<<", "=", "a  ", "a\\b", `"a\"b"`}

var keys = []string{"a", "b", "key", "spec.x", "1", "true", "a b", "a:b", "'q'", "<<", "-", "? x", "k#", "k #c", "a:b:c"}

// randomBlock writes a mapping or sequence at column indent.
func randomBlock(rng *rand.Rand, b *strings.Builder, indent, depth int) {
	pad := strings.Repeat(" ", indent)
	seq := rng.IntN(3) == 0
	for range 1 + rng.IntN(3) {
		switch rng.IntN(12) {
		case 0:
			b.WriteString("\n")
		case 1:
			b.WriteString(strings.Repeat(" ", rng.IntN(6)) + "# comment\n")
		case 2:
			if indent == 0 && depth == 0 {
				b.WriteString("---\n")
			}
		}
		if seq {
			b.WriteString(pad + "-" + strings.Repeat(" ", rng.IntN(3)))
		} else {
			b.WriteString(pad + keys[rng.IntN(len(keys))] + ":")
		}
		child := indent + 1 + rng.IntN(3)
		switch r := rng.IntN(10); {
		case r < 5 || depth > 3:
			b.WriteString(" " + scalars[rng.IntN(len(scalars))])
			if rng.IntN(5) == 0 {
				b.WriteString(" # note")
			}
			b.WriteString(strings.Repeat(" ", rng.IntN(2)) + "\n")
		case r < 7 && seq:
			// A mapping on the dash line.
			b.WriteString(" " + keys[rng.IntN(len(keys))] + ": " + scalars[rng.IntN(len(scalars))] + "\n")
			if rng.IntN(2) == 0 {
				b.WriteString(strings.Repeat(" ", indent+2) + keys[rng.IntN(len(keys))] + ": " + scalars[rng.IntN(len(scalars))] + "\n")
			}
		case r < 8 && !seq:
			// A sequence at the key's own column.
			b.WriteString("\n")
			randomSequence(rng, b, indent)
		default:
			b.WriteString("\n")
			randomBlock(rng, b, child, depth+1)
		}
	}
}

func randomSequence(rng *rand.Rand, b *strings.Builder, indent int) {
	for range 1 + rng.IntN(3) {
		b.WriteString(strings.Repeat(" ", indent) + "- " + scalars[rng.IntN(len(scalars))] + "\n")
	}
}

// BenchmarkParse reads a generated single-node SiteConfig with Parse and
// with yaml.v3's Decoder.
func BenchmarkParse(b *testing.B) {
	dir := b.TempDir()
	if _, err := gen.Generate(dir, gen.Config{Sites: 1, Shape: gen.ShapeSNO, Manifests: 1, Seed: 1, Layout: gen.LayoutFiles}); err != nil {
		b.Fatal(err)
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	data, err := os.ReadFile(matches[0])
	if err != nil {
		b.Fatal(err)
	}
	b.Run("blockyaml", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := Parse(data); !ok {
				b.Fatal("not read")
			}
		}
	})
	b.Run("yaml.v3", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := reference(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// FuzzParse: whatever the text, Parse either leaves it to yaml.v3 or reads
// what yaml.v3 reads.
func FuzzParse(f *testing.F) {
	f.Add([]byte("a: 1\nb:\n- x\n- y: 'z'\n"))
	f.Add([]byte("---\nl:\n  - name: a\n    v: \"02:00\"\n# c\n"))
	f.Add([]byte("k: v # c\n---\n- a\n-\n  - b\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		check(t, "fuzz input", data)
	})
}

// A document nested deeper than maxDepth is left to yaml.v3.
func TestParseLeavesDeepNestingToYAMLv3(t *testing.T) {
	var b strings.Builder
	for i := range maxDepth + 1 {
		b.WriteString(strings.Repeat(" ", i) + "k:\n")
	}
	if _, ok := Parse([]byte(b.String())); ok {
		t.Fatalf("Parse read %d levels of nesting", maxDepth+1)
	}
	if _, ok := Parse([]byte("a:\n b:\n  c: d\n")); !ok {
		t.Fatal("Parse left three levels to yaml.v3")
	}
}

// plainTag gives yaml.v3's tag for a text starting with any byte, whether
// it takes the shortcut or asks yaml.v3.
func TestPlainTagMatchesYAMLv3(t *testing.T) {
	tails := []string{"", "0", "1.5", "rue", "RUE", "alse", "ALSE", "ull", "ULL", "es", "ff", "x", ".inf", "nan", "e3", "0:00", "-01-02", "_1", " a", "<"}
	for c := range 256 {
		for _, tail := range tails {
			n := &yaml.Node{Kind: yaml.ScalarNode, Value: string(rune(c)) + tail}
			if c >= 0x80 {
				n.Value = string([]byte{byte(c)}) + tail
			}
			if got, want := plainTag(n), n.ShortTag(); got != want {
				t.Errorf("%q: %s, want %s", n.Value, got, want)
			}
		}
	}
	if got := plainTag(&yaml.Node{Kind: yaml.ScalarNode}); got != "!!null" {
		t.Errorf("empty: %s, want !!null", got)
	}
}

// Texts that start with a digit, as addresses, versions, times, numbers
// in every base and near-numbers are, get yaml.v3's tag whether notNumber
// says string or leaves them to yaml.v3: random texts over the bytes
// numbers, timestamps and addresses are written with.
func TestPlainTagOfDigitsMatchesYAMLv3(t *testing.T) {
	texts := []string{
		"10.16.231.0/24", "2620:52:0:1302::/64", "192.168.1.1", "1.2", "1.2.3", "4.14.0", "1e3", "1.5e-3", "0x1F", "0o17",
		"0b101", "1_000", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10", "2001-12-14T21:59:43Z",
		"2001-1-2", "12:30", "1:20:30", "0.5.", "1..2", "00", "08", "0x", "1-2", "1+2", "9223372036854775808",
		"18446744073709551616", "1 2", "52:54:00:aa:bb:cc", "1.0.0-rc.1", "3.2.0", "0.0.0.0", "1.e5", "1.5E+3",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "0123456789.-:/_+eExXoObBaAfFtTzZ "
	for range 200000 {
		b := []byte{byte('0' + rng.IntN(10))}
		for range rng.IntN(14) {
			b = append(b, alphabet[rng.IntN(len(alphabet))])
		}
		texts = append(texts, string(b))
	}
	for i := range 3000 { // timestamp-like starts
		texts = append(texts, fmt.Sprintf("%04d-%s", rng.IntN(10000), texts[len(texts)-1-i]))
	}
	for _, text := range texts {
		n := &yaml.Node{Kind: yaml.ScalarNode, Value: text}
		if got, want := plainTag(n), n.ShortTag(); got != want {
			t.Errorf("%q: %s, want %s", text, got, want)
		}
	}
}
