package render

import (
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"text/template"

	"github.com/siteops/siteops/internal/yamlenc"
	"github.com/siteops/siteops/sites"
)

// Extra manifests: the files of the manifest directories, rendered into the
// data of the cluster's ConfigMap (getExtraManifestMaps and getWorkloadManifest
// in openshift-kni/cnf-features-deploy
// ztp/siteconfig-generator/siteConfig/siteConfigBuilder.go).

// manifestEntry is one key of the ConfigMap.
type manifestEntry struct {
	text string
	// content is the parsed manifest; nil for template output.
	content map[string]any
	// mergeable entries are static MachineConfigs of the default or search
	// path directories, which mergeDefaultMachineConfigs folds together.
	mergeable bool
}

// staticManifest is a parsed, annotated and serialized static file. It is
// the same for every site, so it is computed once per file.
type staticManifest struct {
	content map[string]any
	text    string
	err     error
}

func (r *Renderer) static(f *sites.File) *staticManifest {
	if v, ok := r.statics.Load(f); ok {
		return v.(*staticManifest)
	}
	m := &staticManifest{}
	m.content, m.text, m.err = annotateManifest(f.Path, f.Data)
	v, _ := r.statics.LoadOrStore(f, m)
	return v.(*staticManifest)
}

func (r *Renderer) template(f *sites.File) (*template.Template, error) {
	type parsed struct {
		t   *template.Template
		err error
	}
	if v, ok := r.templates.Load(f); ok {
		p := v.(parsed)
		return p.t, p.err
	}
	t, err := parseTemplate(path.Base(f.Path), string(f.Data))
	if err != nil {
		err = fmt.Errorf("template %s: %v", f.Path, err)
	}
	r.templates.Store(f, parsed{t, err})
	return t, err
}

// CheckDefaultManifests reads every file of the default extra-manifest set
// once, so that a broken set is reported once rather than by every site.
// Files are checked as manifests or parsed as templates; what templates
// produce depends on each site and is checked there.
func (r *Renderer) CheckDefaultManifests() error {
	d := r.o.defaultManifests
	if d == nil {
		return nil
	}
	var errs []error
	for _, f := range d.Files {
		if strings.HasSuffix(f.Path, ".tmpl") {
			if _, err := r.template(f); err != nil {
				errs = append(errs, err)
			}
		} else if m := r.static(f); m.err != nil {
			errs = append(errs, m.err)
		}
	}
	return errors.Join(errs...)
}

// annotateManifest parses a manifest, marks it as generated and serializes it.
func annotateManifest(file string, data []byte) (map[string]any, string, error) {
	content, err := sites.DecodeManifest(file, data)
	if err != nil {
		return nil, "", err
	}
	if err := refuseCredentials(file, content); err != nil {
		return nil, "", err
	}
	ensureMap(content, "metadata", "annotations")[AnnotationZTPGenerated] = AnnotationZTPGeneratedValue
	text, err := yamlenc.Marshal(content)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %v", file, err)
	}
	return content, string(text), nil
}

// templateOutputs remembers what annotateManifest makes of a template's
// output: a template that reads only .Role gives every site the same text.
var templateOutputs = newMemo[templateOutput, annotatedText](1024)

type templateOutput struct{ file, text string }

type annotatedText struct {
	text string
	err  error
}

// annotatedOutput is the text annotateManifest makes of a template's
// output.
func annotatedOutput(file string, out []byte) (string, error) {
	if len(out) > maxMemoText {
		_, text, err := annotateManifest(file, out)
		return text, err
	}
	k := templateOutput{file, string(out)}
	res := templateOutputs.get(k, func() annotatedText {
		_, text, err := annotateManifest(file, out)
		return annotatedText{text, err}
	})
	return res.text, res.err
}

// refuseCredentials refuses a manifest, or a List item, of a kind that
// carries credentials (credentialKinds).
func refuseCredentials(file string, content map[string]any) error {
	kind, _ := content["kind"].(string)
	if where, ok := credentialKinds[kind]; ok {
		return fmt.Errorf("%s: an extra manifest of kind %s carries credentials (%s), and extra manifests are copied "+
			"in clear text into the cluster's ConfigMap: remove the file from the extra-manifest directory and create "+
			"the %s on the cluster by other means (a policy of the hub, an external or sealed secret)", file, kind, where, kind)
	}
	if items, ok := content["items"].([]any); ok {
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				if err := refuseCredentials(file, m); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// templateData is what an extra-manifest template sees: .Role and .Data,
// the whole cluster by the generator's Go field names.
type templateData struct {
	Role string
	Data *sites.Clusters
}

// extraManifests computes the ConfigMap data for the site.
func (r *siteRender) extraManifests() (map[string]manifestEntry, error) {
	c := r.cluster
	var dirs []*sites.ManifestDir
	var userDir *sites.ManifestDir
	if c.ExtraManifests.SearchPaths != nil {
		for _, p := range *c.ExtraManifests.SearchPaths {
			dirs = append(dirs, r.site.Files.Dirs[p])
		}
	} else {
		if r.r.o.defaultManifests != nil {
			dirs = append(dirs, r.r.o.defaultManifests)
		}
		if c.ExtraManifestPath != "" {
			userDir = r.site.Files.Dirs[c.ExtraManifestPath]
		}
	}
	roles := r.site.Roles()
	// Sized for a key per file (a template's roles may add some): the
	// map of twenty manifests grew three times for every site.
	size := 0
	for _, d := range dirs {
		if d != nil {
			size += len(d.Files)
		}
	}
	entries := make(map[string]manifestEntry, size)
	var workload *sites.ManifestDir
	for _, d := range dirs {
		if d == nil {
			return nil, fmt.Errorf("an extra-manifest directory was not loaded")
		}
		if d.Workload != nil {
			workload = d.Workload
		}
		if err := r.addDir(entries, d, roles, true); err != nil {
			return nil, err
		}
	}
	if userDir != nil {
		user := map[string]manifestEntry{}
		if err := r.addDir(user, userDir, roles, false); err != nil {
			return nil, err
		}
		for name, e := range user {
			if _, taken := entries[name]; taken {
				return nil, fmt.Errorf("extraManifestPath file %s has the name of a default extra manifest; rename it (default manifests cannot be overwritten)", name)
			}
			entries[name] = e
		}
	}
	if err := r.addWorkload(entries, workload); err != nil {
		return nil, err
	}
	if err := filterManifests(entries, c.ExtraManifests.Filter); err != nil {
		return nil, err
	}
	if c.MergeDefaultMachineConfigs {
		if err := mergeMachineConfigs(entries); err != nil {
			return nil, err
		}
	}
	return entries, nil
}

// addDir adds a directory's manifests. predefined is true for the default
// and search-path directories: their .tmpl files are templates and their
// MachineConfigs may be merged. The legacy extraManifestPath directory is
// passed through as it is, templates included, as upstream does.
func (r *siteRender) addDir(entries map[string]manifestEntry, d *sites.ManifestDir, roles []string, predefined bool) error {
	// The size of the data so far, kept up to date as entries are set:
	// adding it up again for every file costs as much as the rest of
	// the extra manifests.
	total := dataSize(entries)
	put := func(key string, e manifestEntry) {
		if old, ok := entries[key]; ok {
			total -= len(key) + len(old.text)
		}
		entries[key] = e
		total += len(key) + len(e.text)
	}
	for _, f := range d.Files {
		name := path.Base(f.Path)
		// Checked before the file is parsed: thirty 8 MB manifests would
		// take gigabytes to parse for a ConfigMap Kubernetes refuses.
		if size := total + len(f.Data); size > MaxConfigMapData {
			return fmt.Errorf("with %s (%d bytes) the extra manifests come to %d bytes, over the %d bytes a ConfigMap "+
				"can hold: move large content out of the extra manifests", f.Path, len(f.Data), size, MaxConfigMapData)
		}
		if !predefined || !strings.HasSuffix(name, ".tmpl") {
			m := r.r.static(f)
			if m.err != nil {
				return m.err
			}
			put(name, manifestEntry{text: m.text, content: m.content, mergeable: predefined})
			continue
		}
		t, err := r.r.template(f)
		if err != nil {
			return err
		}
		for _, role := range roles {
			out := &limitedBuffer{limit: maxTemplateOutput}
			if err := execute(t, out, templateData{Role: role, Data: r.data}); err != nil {
				return fmt.Errorf("template %s (role %s): %v", f.Path, role, err)
			}
			if strings.TrimSpace(out.String()) == "" {
				continue // a template may render nothing for a role
			}
			text, err := annotatedOutput(f.Path, out.Bytes())
			if err != nil {
				return fmt.Errorf("output of template %s for role %s: %v", f.Path, role, err)
			}
			key := role + "-" + strings.TrimSuffix(name, ".tmpl")
			put(key, manifestEntry{text: text})
			if size := total; size > MaxConfigMapData {
				return fmt.Errorf("the extra manifests come to %d bytes with the output of template %s for role %s, over the %d bytes a ConfigMap can hold",
					size, f.Path, role, MaxConfigMapData)
			}
		}
	}
	return nil
}

// dataSize is what the ConfigMap's data of entries takes, as Kubernetes
// counts it: keys and values.
func dataSize(entries map[string]manifestEntry) int {
	n := 0
	for k, e := range entries {
		n += len(k) + len(e.text)
	}
	return n
}

// Files of the legacy workload-partitioning directory (the generator's
// getWorkloadManifest).
const (
	workloadManifest = "03-workload-partitioning.yaml"
	workloadCrio     = "crio.conf"
	workloadKubelet  = "kubelet.conf"
)

// addWorkload renders the legacy cpuset workload partitioning: SNO only,
// and only when a manifest directory has a workload/ folder.
func (r *siteRender) addWorkload(entries map[string]manifestEntry, dir *sites.ManifestDir) error {
	c := r.cluster
	if dir == nil || c.ClusterType != sites.ClusterTypeSNO {
		return nil
	}
	files := map[string]*sites.File{}
	for _, f := range dir.Files {
		files[path.Base(f.Path)] = f
	}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if n.Cpuset == "" {
			continue
		}
		tmpl, crio, kubelet := files[workloadManifest], files[workloadCrio], files[workloadKubelet]
		if tmpl == nil || crio == nil || kubelet == nil {
			return fmt.Errorf("cpuset needs %s, %s and %s in %s", workloadManifest, workloadCrio, workloadKubelet, dir.Path)
		}
		role := n.Role // as written: an explicit "" stays "", as upstream
		enc := func(f *sites.File) string {
			return base64.StdEncoding.EncodeToString([]byte(strings.ReplaceAll(string(f.Data), "$cpuset", n.Cpuset)))
		}
		text := strings.NewReplacer("$crio", enc(crio), "$k8s", enc(kubelet), "$mcp", role).Replace(string(tmpl.Data))
		content, out, err := annotateManifest(tmpl.Path, []byte(text))
		if err != nil {
			return err
		}
		entries["03-"+role+"-"+strings.TrimPrefix(workloadManifest, "03-")] = manifestEntry{text: out, content: content}
	}
	return nil
}

// filterManifests applies extraManifests.filter (the generator's
// filterExtraManifests).
func filterManifests(entries map[string]manifestEntry, f *sites.Filter) error {
	if f == nil {
		return nil
	}
	check := func(list []string, which string) error {
		for i, name := range list {
			// A file excluded twice is gone the second time, which the
			// generator reports; one included twice is simply kept.
			if which == "exclude" && slices.Contains(list[:i], name) {
				return fmt.Errorf("extraManifests.filter.%s names %s twice; list each file once", which, name)
			}
			if _, ok := entries[name]; !ok {
				return fmt.Errorf("extraManifests.filter.%s names %s, which is not an extra manifest of this cluster (have: %s)", which, name, strings.Join(sortedKeys(entries), ", "))
			}
		}
		return nil
	}
	if f.InclusionDefault != nil && strings.EqualFold(*f.InclusionDefault, "exclude") {
		if err := check(f.Include, "include"); err != nil {
			return err
		}
		keep := map[string]bool{}
		for _, n := range f.Include {
			keep[n] = true
		}
		for name := range entries {
			if !keep[name] {
				delete(entries, name)
			}
		}
		return nil
	}
	if err := check(f.Exclude, "exclude"); err != nil {
		return err
	}
	for _, n := range f.Exclude {
		delete(entries, n)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
