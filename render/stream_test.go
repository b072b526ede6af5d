package render_test

import (
	"bytes"
	"context"
	"testing"
	"testing/fstest"

	"github.com/siteops/siteops/internal/redact"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// A result encoded with credentials hidden on the worker is written as it
// is; one that holds a value registered after it was encoded (a Secret of
// a file decoded meanwhile) is scanned again when it is written.
func TestWriteResultHidesValuesRegisteredLate(t *testing.T) {
	const early, late = "EarlyStreamSecret-41", "LateStreamSecret-42"
	site := manifestSite("    crAnnotations:\n      add:\n        Namespace:\n          note: \"" + early + " " + late + "\"\n")
	fleet, err := sites.Load(context.Background(), fstest.MapFS{"site.yaml": {Data: []byte(site)}}, []string{"site.yaml"})
	if err != nil || len(fleet.Sites) != 1 {
		t.Fatalf("load: %v %v", err, fleet.Problems)
	}
	yamlEnc, _ := render.NewEncoder(render.FormatYAML)
	r := render.New()

	plain := r.RenderEncoded(fleet.Sites[0], yamlEnc)
	if !bytes.Contains(plain.Encoded, []byte(early)) {
		t.Fatalf("the planted value is not in the output; the test proves nothing:\n%s", plain.Encoded)
	}

	redact.Register(early)
	res := r.RenderEncoded(fleet.Sites[0], render.Redacting(yamlEnc))
	if bytes.Contains(res.Encoded, []byte(early)) || !bytes.Contains(res.Encoded, []byte(late)) {
		t.Fatalf("encoded with Redacting: want %s hidden and %s (not yet registered) kept:\n%s", early, late, res.Encoded)
	}
	redact.Register(late)
	for name, write := range map[string]func(*render.StreamWriter) error{
		"WriteResult": func(w *render.StreamWriter) error { return w.WriteResult(res) },
		"Write":       func(w *render.StreamWriter) error { return w.Write(plain.Encoded) },
	} {
		var out bytes.Buffer
		w := render.NewStreamWriter(&out, yamlEnc)
		if err := write(w); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(out.Bytes(), []byte(early)) || bytes.Contains(out.Bytes(), []byte(late)) {
			t.Errorf("%s printed a registered value:\n%s", name, out.Bytes())
		}
		if !bytes.Contains(out.Bytes(), []byte("note: "+redact.Mask+" "+redact.Mask)) {
			t.Errorf("%s: the annotation is not there with both values hidden:\n%s", name, out.Bytes())
		}
	}
	res.Release()
	if res.Encoded != nil {
		t.Error("Release left Encoded set: a released buffer must not be read again")
	}
}

// Releasing a result lets the next render reuse its buffer, and what it
// encodes is the same bundle as with a fresh buffer.
func TestRenderEncodedReusesReleasedBuffers(t *testing.T) {
	fleet, err := sites.Load(context.Background(), fstest.MapFS{"site.yaml": {Data: []byte(manifestSite(""))}}, []string{"site.yaml"})
	if err != nil || len(fleet.Sites) != 1 {
		t.Fatalf("load: %v %v", err, fleet.Problems)
	}
	enc, _ := render.NewEncoder(render.FormatYAML)
	r := render.New()
	first := r.RenderEncoded(fleet.Sites[0], enc)
	want := string(first.Encoded)
	for range 3 {
		first.Release()
		first = r.RenderEncoded(fleet.Sites[0], enc)
		if got := string(first.Encoded); got != want {
			t.Fatalf("with a reused buffer the bundle encodes to\n%s\nwant\n%s", got, want)
		}
	}
}
