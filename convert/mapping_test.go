package convert

import (
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/siteops/siteops/sites"
)

var update = flag.Bool("update", false, "rewrite the mapping table in docs/convert.md")

// TestEveryFieldHasARule keeps the promise of never dropping a field
// silently: every key a SiteConfig can hold must have a row in the
// mapping table, so a field added to the sites types fails here until
// someone decides what becomes of it.
func TestEveryFieldHasARule(t *testing.T) {
	var froms []string
	for _, r := range rules {
		froms = append(froms, r.from)
	}
	for _, r := range nodeRules {
		froms = append(froms, r.from)
	}
	covered := func(field string) bool {
		for _, f := range froms {
			if f == field || strings.HasPrefix(f, field+".") || strings.HasPrefix(f, field+" ") {
				return true
			}
		}
		return false
	}
	var walk func(typ reflect.Type, prefix string)
	walk = func(typ reflect.Type, prefix string) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			tag := strings.Split(f.Tag.Get("yaml"), ",")[0]
			if tag == "" || tag == "-" {
				continue
			}
			path := prefix + tag
			switch {
			case f.Type == reflect.TypeFor[sites.Metadata](),
				f.Type == reflect.TypeFor[sites.Spec]():
				walk(f.Type, path+".")
			case f.Type == reflect.TypeFor[[]sites.Clusters](), f.Type == reflect.TypeFor[[]sites.Nodes]():
				if !covered(path) {
					t.Errorf("SiteConfig field %s has no rule in mapping.go", path)
				}
				walk(f.Type.Elem(), path+"[].")
			default:
				if !covered(path) {
					t.Errorf("SiteConfig field %s has no rule in mapping.go", path)
				}
			}
		}
	}
	walk(reflect.TypeFor[sites.SiteConfig](), "")
}

const (
	tableStart = "<!-- mapping table: generated from convert/mapping.go by `go test ./convert -run TestDocsMappingTable -update` -->"
	tableEnd   = "<!-- end of mapping table -->"
)

// markdownTable renders the mapping table for docs/convert.md.
func markdownTable() string {
	var b strings.Builder
	cell := func(s string) string {
		if s == "" {
			return "—"
		}
		if strings.HasPrefix(s, "(") {
			return s
		}
		parts := strings.Split(s, ", ")
		for i, p := range parts {
			parts[i] = "`" + p + "`"
		}
		return strings.Join(parts, ", ")
	}
	row := func(from, to, how string) {
		b.WriteString("| " + cell(from) + " | " + cell(to) + " | " + how + " |\n")
	}
	b.WriteString(tableStart + "\n\n")
	b.WriteString("| SiteConfig | ClusterInstance | what happens |\n|---|---|---|\n")
	for _, r := range rules {
		row(r.from, r.to, r.how)
	}
	for _, r := range nodeRules {
		row(r.from, r.to, r.how)
	}
	b.WriteString("\n" + tableEnd)
	return b.String()
}

// TestDocsMappingTable keeps docs/convert.md's table equal to mapping.go.
func TestDocsMappingTable(t *testing.T) {
	const doc = "../docs/convert.md"
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start, end := strings.Index(text, tableStart), strings.Index(text, tableEnd)
	if start < 0 || end < start {
		t.Fatalf("%s has no mapping table markers", doc)
	}
	current := text[start : end+len(tableEnd)]
	want := markdownTable()
	if current == want {
		return
	}
	if *update {
		if err := os.WriteFile(doc, []byte(text[:start]+want+text[end+len(tableEnd):]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the mapping table in %s is out of date; run go test ./convert -run TestDocsMappingTable -update", doc)
}
