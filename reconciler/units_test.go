package reconciler

import (
	"maps"
	"slices"
	"testing"
	"testing/fstest"
)

// TestGeneratorCache checks that the generators a kustomization lists
// follow its content: read again and the same, or changed, or gone.
func TestGeneratorCache(t *testing.T) {
	const file = "fleet/kustomization.yaml"
	list := func(gens ...string) *fstest.MapFile {
		data := "generators:\n"
		for _, g := range gens {
			data += "- " + g + "\n"
		}
		return &fstest.MapFile{Data: []byte(data)}
	}
	var c generatorCache
	steps := []struct {
		name string
		file *fstest.MapFile
		want []string
	}{
		{name: "first read", file: list("a.yaml", "b.yaml"), want: []string{"fleet/a.yaml", "fleet/b.yaml"}},
		{name: "same content", file: list("a.yaml", "b.yaml"), want: []string{"fleet/a.yaml", "fleet/b.yaml"}},
		{name: "one added", file: list("a.yaml", "b.yaml", "c.yaml"), want: []string{"fleet/a.yaml", "fleet/b.yaml", "fleet/c.yaml"}},
		{name: "one removed", file: list("c.yaml"), want: []string{"fleet/c.yaml"}},
		{name: "no longer parses", file: &fstest.MapFile{Data: []byte("generators: [")}, want: nil},
	}
	for _, st := range steps {
		fsys := fstest.MapFS{file: st.file}
		got, listed := c.generators(fsys, "fleet")
		if got != file {
			t.Fatalf("%s: file %q, want %q", st.name, got, file)
		}
		if names := slices.Sorted(maps.Keys(listed)); !slices.Equal(names, st.want) {
			t.Errorf("%s: listed %v, want %v", st.name, names, st.want)
		}
	}
}
