package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"gopkg.in/yaml.v3"

	"github.com/siteops/siteops/internal/safefs"
	"github.com/siteops/siteops/sites"
)

// PolicyError is a user policy or data file that cannot be used. Load
// returns one for each problem found (joined with errors.Join), so that
// the CLI can print them all with their file and line and exit 2.
type PolicyError struct {
	Pos     sites.Position
	Message string
}

func (e *PolicyError) Error() string {
	if e.Pos.File == "" {
		return e.Message
	}
	return e.Pos.String() + ": " + e.Message
}

// fsError is a PolicyError for a file that cannot be read, in plain words
// (safefs.Explain) without repeating the path.
func fsError(p string, err error) *PolicyError {
	return &PolicyError{Pos: sites.Position{File: p}, Message: strings.TrimPrefix(safefs.Explain(p, err).Error(), p+" ")}
}

// astErrors turns OPA's parse and compile errors into PolicyErrors.
func astErrors(err error) error {
	var errs ast.Errors
	if one := (*ast.Error)(nil); errors.As(err, &one) {
		errs = ast.Errors{one}
	} else if !errors.As(err, &errs) {
		return err
	}
	out := make([]error, 0, len(errs))
	for _, e := range errs {
		pe := &PolicyError{Message: e.Code + ": " + e.Message}
		if e.Location != nil {
			pe.Pos = sites.Position{File: e.Location.File, Line: e.Location.Row, Column: e.Location.Col}
		}
		out = append(out, pe)
	}
	return errors.Join(out...)
}

// loadUserPolicies parses the .rego files under each path (a directory,
// walked recursively, or a file).
func loadUserPolicies(paths []string, max int64) (map[string]*ast.Module, error) {
	mods := map[string]*ast.Module{}
	var errs []error
	for _, root := range paths {
		err := walkFiles(root, func(file string) bool { return strings.HasSuffix(file, ".rego") }, func(file string) error {
			src, err := readFile(file, max)
			if err != nil {
				return err
			}
			m, err := ast.ParseModuleWithOpts(file, string(src), parserOptions())
			if err != nil {
				return astErrors(err)
			}
			if m.Package.Path.HasPrefix(builtinRoot) {
				return &PolicyError{Pos: position(m.Package.Location, file),
					Message: fmt.Sprintf("package %s is reserved for siteops' built-in rules; use a package under your namespace",
						strings.TrimPrefix(m.Package.Path.String(), "data."))}
			}
			mods[file] = m
			return nil
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return mods, errors.Join(errs...)
}

func position(loc *ast.Location, file string) sites.Position {
	if loc == nil {
		return sites.Position{File: file}
	}
	return sites.Position{File: file, Line: loc.Row, Column: loc.Col}
}

// walkFiles calls fn for every file under root (root itself when it is a
// file) that keep accepts, in lexical order, skipping dot-directories.
// Problems with single files are collected; the walk goes on.
func walkFiles(root string, keep func(string) bool, fn func(string) error) error {
	st, err := os.Stat(root)
	if err != nil {
		return fsError(root, err)
	}
	if !st.IsDir() {
		return fn(root)
	}
	var errs []error
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			errs = append(errs, fsError(p, err))
			return nil
		case d.IsDir() && p != root && strings.HasPrefix(d.Name(), "."):
			return fs.SkipDir
		case d.IsDir() || !keep(p):
			return nil
		}
		if err := fn(p); err != nil {
			errs = append(errs, err)
		}
		return nil
	})
	if err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func readFile(file string, max int64) ([]byte, error) {
	data, err := safefs.ReadFile(os.DirFS(filepath.Dir(file)), filepath.Base(file), max)
	if err != nil {
		return nil, &PolicyError{Pos: sites.Position{File: file}, Message: err.Error()}
	}
	return data, nil
}

// loadData reads the YAML and JSON files under each data directory into
// one document, as conftest's --data does: the directory of a file below
// the root is its path in data (d/sub/x.yaml with key k is data.sub.k),
// and documents at one path are merged key by key.
func loadData(roots []string, max int64) (ast.Object, error) {
	data := map[string]any{}
	var errs []error
	for _, root := range roots {
		err := walkFiles(root, isDataFile, func(file string) error {
			src, err := readFile(file, max)
			if err != nil {
				return err
			}
			doc, err := decodeData(file, src)
			if err != nil {
				return err
			}
			var at []string
			if rel, err := filepath.Rel(root, filepath.Dir(file)); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
				at = strings.Split(filepath.ToSlash(rel), "/")
			}
			if _, reserved := doc["siteops"]; len(at) == 0 && reserved || len(at) > 0 && at[0] == "siteops" {
				return &PolicyError{Pos: sites.Position{File: file}, Message: "data path siteops is reserved for siteops' fleet facts"}
			}
			if err := mergeAt(data, at, doc); err != nil {
				return &PolicyError{Pos: sites.Position{File: file}, Message: err.Error()}
			}
			return nil
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	v, err := ast.InterfaceToValue(data)
	if err != nil {
		return nil, fmt.Errorf("convert data: %w", err)
	}
	return v.(ast.Object), nil
}

func isDataFile(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

var yamlLineError = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// decodeData decodes one data file, which must hold one mapping.
func decodeData(file string, src []byte) (map[string]any, error) {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var doc any
	err := dec.Decode(&doc)
	switch {
	case errors.Is(err, io.EOF):
		return map[string]any{}, nil
	case err != nil:
		pe := &PolicyError{Pos: sites.Position{File: file}, Message: "not valid YAML or JSON: " + strings.TrimPrefix(err.Error(), "yaml: ")}
		if m := yamlLineError.FindStringSubmatch(err.Error()); m != nil {
			pe.Pos.Line, _ = strconv.Atoi(m[1])
			pe.Message = "not valid YAML or JSON: " + m[2]
		}
		return nil, pe
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, &PolicyError{Pos: sites.Position{File: file}, Message: "a data file holds one document; split it into one file per document"}
	}
	doc, err = jsonCompatible(doc)
	if err != nil {
		return nil, &PolicyError{Pos: sites.Position{File: file}, Message: err.Error()}
	}
	if doc == nil {
		return map[string]any{}, nil
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, &PolicyError{Pos: sites.Position{File: file}, Message: "the document is not a mapping; data files hold key: value pairs"}
	}
	return obj, nil
}

// jsonCompatible turns yaml.v3's maps with non-string keys into
// map[string]any, as JSON would have them.
func jsonCompatible(x any) (any, error) {
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			v, err := jsonCompatible(v)
			if err != nil {
				return nil, err
			}
			x[k] = v
		}
		return x, nil
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, v := range x {
			v, err := jsonCompatible(v)
			if err != nil {
				return nil, err
			}
			out[fmt.Sprint(k)] = v
		}
		return out, nil
	case []any:
		for i, v := range x {
			v, err := jsonCompatible(v)
			if err != nil {
				return nil, err
			}
			x[i] = v
		}
		return x, nil
	case float64, int, int64, uint64, string, bool, nil:
		return x, nil
	}
	// Timestamps and binary values: keep their JSON form.
	b, err := json.Marshal(x)
	if err != nil {
		return nil, fmt.Errorf("value %v has no JSON form: %w", x, err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// mergeAt merges doc into data at the path at, key by key; two files that
// set the same key to values that are not both mappings conflict.
func mergeAt(data map[string]any, at []string, doc map[string]any) error {
	for _, k := range at {
		switch next := data[k].(type) {
		case nil:
			m := map[string]any{}
			data[k] = m
			data = m
		case map[string]any:
			data = next
		default:
			return fmt.Errorf("data path %s is already a value, not a mapping", strings.Join(at, "."))
		}
	}
	for k, v := range doc {
		old, set := data[k]
		if !set {
			data[k] = v
			continue
		}
		a, aok := old.(map[string]any)
		b, bok := v.(map[string]any)
		if !aok || !bok {
			return fmt.Errorf("data key %q is set by another data file too", k)
		}
		if err := mergeAt(a, nil, b); err != nil {
			return err
		}
	}
	return nil
}
