package render

import (
	"errors"
	"strconv"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"

	"github.com/siteops/siteops/sites"
)

// Option configures a Renderer.
type Option func(*options)

type options struct {
	defaultManifests *sites.ManifestDir
}

// WithDefaultManifests sets the default extra-manifest directory (the
// generator's -manifestPath). Without it the default set is empty.
func WithDefaultManifests(d *sites.ManifestDir) Option {
	return func(o *options) { o.defaultManifests = d }
}

// Renderer renders sites. It caches what every site shares (parsed
// extra manifests and templates), so one Renderer should serve a whole
// fleet; it is safe for concurrent use.
type Renderer struct {
	o         options
	statics   sync.Map // *sites.File -> *staticManifest
	templates sync.Map // *sites.File -> parsed template
	sizeHint  atomic.Int64
}

// New returns a Renderer.
func New(opts ...Option) *Renderer {
	r := &Renderer{}
	for _, opt := range opts {
		opt(&r.o)
	}
	return r
}

// Render renders one site into its bundle. It does no I/O: everything the
// site refers to was read when it was loaded. When the site cannot be
// rendered the bundle is nil and the problems say why; warnings may come
// with a bundle.
func (r *Renderer) Render(s *sites.Site) (*Bundle, sites.Problems) { return r.render(s, false) }

// RenderTyped is Render for a reader of a few objects: the objects
// RenderEncoded writes from their typed form carry no Content, and
// Object.Map builds it for those read. The problems are Render's.
func (r *Renderer) RenderTyped(s *sites.Site) (*Bundle, sites.Problems) { return r.render(s, true) }

// render is Render, with objects written from their typed form when
// direct is set.
func (r *Renderer) render(s *sites.Site, direct bool) (*Bundle, sites.Problems) {
	if s.Instance != nil {
		return r.renderClusterInstance(s)
	}
	sr := &siteRender{r: r, site: s, cluster: s.Cluster, data: derivedData(s), direct: direct}
	objs, err := sr.render()
	if err != nil {
		var p sites.Problem
		if !errors.As(err, &p) {
			p = s.Problem(s.FieldPath(""), "%v", err)
		}
		return nil, append(sr.problems, p)
	}
	Sort(objs)
	return &Bundle{Site: s.Name, Objects: objs}, sr.problems
}

// DeprecatedFields are warnings on the deprecated fields the site uses,
// with the message of the annotation the generator writes for each.
// Render leaves them out of its problems (the annotations say it);
// commands that report to a person add them.
func DeprecatedFields(s *sites.Site) sites.Problems {
	if s.Cluster == nil {
		return nil
	}
	var ps sites.Problems
	for _, d := range deprecations {
		if field := d.field(s.Cluster); field != "" {
			p := s.Problem(s.FieldPath(field), "deprecated: %s", d.message)
			p.Severity = sites.SeverityWarning
			ps = append(ps, p)
		}
	}
	return ps
}

// siteRender is the state of rendering one site.
type siteRender struct {
	r       *Renderer
	site    *sites.Site
	cluster *sites.Clusters
	// data is the cluster as crTemplate placeholders and extra-manifest
	// templates see it (derivedData).
	data     *sites.Clusters
	problems sites.Problems
	objs     []*Object
	// direct: objects are written to YAML from their typed form where
	// they can be (directObject), and carry no content map.
	direct bool
	// configMapOverrides holds, for each ConfigMap a ConfigMap crTemplate
	// was tried on, why it was ignored ("" when it was applied).
	configMapOverrides []string
}

func (r *siteRender) fieldError(field, format string, args ...any) error {
	p := r.site.FieldPath(field)
	return r.site.Problem(p, format, args...)
}

func (r *siteRender) warn(msg string) {
	p := r.site.Problem(r.site.FieldPath(""), "%s", msg)
	p.Severity = sites.SeverityWarning
	r.problems = append(r.problems, p)
}

func itoa(i int) string { return strconv.Itoa(i) }

// derivedData is the cluster with the values the generator fills in before it
// renders anything (updateAgentClusterInstall in the generator's
// siteConfigBuilder.go): NetworkType holds the finished install-config
// overrides JSON, which is what the default AgentClusterInstall's
// "{{ .Cluster.NetworkType }}" placeholder expects, ClusterImageSetNameRef falls
// back to the site's, and a v2 site ConfigMap with data but no name gets its
// default name.
func derivedData(s *sites.Site) *sites.Clusters {
	d := *s.Cluster
	if overrides, err := installConfigOverrides(s.Cluster); err == nil {
		d.NetworkType = overrides
	}
	d.ClusterImageSetNameRef = imageSet(s.Cluster, s.Spec())
	if scm := d.SiteConfigMap; scm != nil && scm.Name == "" && len(scm.Data) > 0 {
		named := *scm
		named.Name = siteConfigMapNamePrefix + d.ClusterName
		d.SiteConfigMap = &named
	}
	return &d
}

// render builds every resource in the generator's template order.
func (r *siteRender) render() ([]*Object, error) {
	c := r.cluster
	steps := []struct {
		kind  string
		build func() (any, error)
	}{
		{KindNamespace, r.namespace},
		{KindAgentClusterInstall, r.agentClusterInstall},
		{KindClusterDeployment, r.clusterDeployment},
	}
	for _, st := range steps {
		if err := r.emit(st.kind, -1, st.build); err != nil {
			return nil, err
		}
	}
	for i := range c.Nodes {
		if !r.hasNetwork(i) {
			continue // no NMStateConfig for a host without static network (BZ 2028510)
		}
		config := &freeForm{path: nmStateConfigPath, value: c.Nodes[i].NodeNetwork.Config}
		if _, err := r.emitContent(KindNMStateConfig, i, func() (any, error) { return r.nmStateConfig(i) }, hooks{free: config}); err != nil {
			return nil, err
		}
	}
	if err := r.emit(KindInfraEnv, -1, r.infraEnv); err != nil {
		return nil, err
	}
	for i := range c.Nodes {
		if err := r.emit(KindBareMetalHost, i, func() (any, error) { return r.bareMetalHost(i) }); err != nil {
			return nil, err
		}
	}
	for i := range c.Nodes {
		if p, _ := r.biosPath(i); p == "" {
			continue
		}
		var settings any
		build := func() (any, error) {
			hfs, err := r.hostFirmwareSettings(i)
			if hfs != nil {
				settings, _ = tomapSettings(hfs.Spec.Settings)
			}
			return hfs, err
		}
		// The BIOS profile is the spec, whatever a crTemplate says.
		keepSettings := func(content map[string]any) {
			content["spec"] = map[string]any{"settings": settings}
		}
		if _, err := r.emitContent(KindHostFirmwareSettings, i, build, hooks{finish: keepSettings}); err != nil {
			return nil, err
		}
	}
	if err := r.manifestsConfigMap(); err != nil {
		return nil, err
	}
	if err := r.siteConfigMap(); err != nil {
		return nil, err
	}
	r.warnIgnoredConfigMap()
	for _, st := range []struct {
		kind  string
		build func() (any, error)
	}{{KindManagedCluster, r.managedCluster}, {KindKlusterletAddonConfig, r.klusterletAddonConfig}} {
		if err := r.emit(st.kind, -1, st.build); err != nil {
			return nil, err
		}
	}
	return r.objs, nil
}

// hasNetwork reports whether node i gets an NMStateConfig.
func (r *siteRender) hasNetwork(i int) bool {
	n := &r.cluster.Nodes[i]
	p, _ := r.crTemplatePath(KindNMStateConfig, i)
	return len(n.NodeNetwork.Config) > 0 || len(n.NodeNetwork.Interfaces) > 0 || p != ""
}

// suppressed reports whether crSuppression drops a kind: node kinds by the
// node's list, cluster kinds by the cluster's (the generator's
// suppressCrGeneration).
func (r *siteRender) suppressed(kind string, node int) bool {
	list := r.cluster.CrSuppression
	if node >= 0 {
		list = r.cluster.Nodes[node].CrSuppression
	}
	for _, k := range list {
		if k == kind {
			return true
		}
	}
	return false
}

// emit builds one resource, applies its crTemplate and the post-processing
// every generated object gets, and adds it.
func (r *siteRender) emit(kind string, node int, build func() (any, error)) error {
	_, err := r.emitContent(kind, node, build, hooks{})
	return err
}

// hooks are what an object's content holds beyond its typed form.
type hooks struct {
	// free is a document of the site's, taken into the content as the
	// site wrote it (before a crTemplate may replace the content).
	free *freeForm
	// complete adds to the default content what the typed object does
	// not carry, before a crTemplate may replace it; finish runs on the
	// final content, overridden or not. An object with either is never
	// written from its typed form.
	complete, finish func(map[string]any)
}

// nmStateConfigPath is where an NMStateConfig holds the site's nmstate
// document.
var nmStateConfigPath = []string{"spec", "config"}

// freeForm is a free-form document the site wrote for one field of an
// object (an NMStateConfig's spec.config): the typed field would take it
// through JSON. It is put in place by the object's prune tree
// (tomap.Prune.Replace), and left out when empty.
type freeForm struct {
	path  []string
	value map[string]any
}

// emitContent is emit with hooks.
func (r *siteRender) emitContent(kind string, node int, build func() (any, error), h hooks) (*Object, error) {
	if r.suppressed(kind, node) {
		return nil, nil
	}
	typed, err := build()
	if err != nil {
		return nil, err
	}
	if r.direct && h.complete == nil && h.finish == nil {
		if o := r.directObject(kind, node, typed, pruneFor(kind, h.free, false)); o != nil {
			r.objs = append(r.objs, o)
			return o, nil
		}
	}
	// The content map is edited later (crTemplates, post-processing): it
	// takes a copy of the site's document.
	content, err := toContent(kind, typed, pruneFor(kind, h.free, true))
	if err != nil {
		return nil, err
	}
	r.keepEmpty(kind, node, content)
	if h.complete != nil {
		h.complete(content)
	}
	if content, err = r.applyCRTemplate(kind, node, content); err != nil {
		return nil, err
	}
	if h.finish != nil {
		h.finish(content)
	}
	r.postProcess(kind, node, contentMetadata(content))
	o := &Object{
		APIVersion: str(content, "apiVersion"), Kind: kind,
		Namespace: str(content, "metadata", "namespace"), Name: str(content, "metadata", "name"),
		Wave: waveOf(content), Content: content,
	}
	r.objs = append(r.objs, o)
	return o, nil
}

// crAnnotations finds the annotations to add to kind: the first level
// (node, cluster, site) that names the kind wins as a whole.
func (r *siteRender) crAnnotations(kind string, node int) map[string]string {
	if node >= 0 {
		if a, ok := r.cluster.Nodes[node].CrAnnotations.Add[kind]; ok {
			return a
		}
	}
	if a, ok := r.cluster.CrAnnotations.Add[kind]; ok {
		return a
	}
	return r.site.Spec().CrAnnotations.Add[kind]
}

// postProcess applies what every generated object gets, overridden or not (the
// generator's getClusterCRs): crAnnotations (never overwriting a generated
// annotation), the ZTP annotation, the deprecation warnings, the inspection
// annotation only when disabled, and the ManagedCluster's auto-detect labels.
func (r *siteRender) postProcess(kind string, node int, m metadata) {
	for k, v := range r.crAnnotations(kind, node) {
		if _, taken := m.annotation(k); !taken {
			m.setAnnotation(k, v)
		}
	}
	if kind == KindBareMetalHost {
		if v, ok := m.annotation(AnnotationInspect); ok && v != InspectDisabled {
			m.deleteAnnotation(AnnotationInspect)
		}
		m.expandNodeLabels()
	}
	m.setAnnotation(AnnotationZTPGenerated, AnnotationZTPGeneratedValue)
	for _, d := range deprecations {
		if d.kind == kind && d.used(r.cluster) {
			m.setAnnotation(d.annotation, d.message)
		}
	}
	if kind == KindManagedCluster {
		for _, l := range []string{LabelVendor, LabelCloud} {
			if !m.hasLabel(l) {
				m.setLabel(l, LabelValueAutoDetect)
			}
		}
	}
}

// manifestsConfigMap renders the cluster's extra-manifest ConfigMap.
func (r *siteRender) manifestsConfigMap() error {
	c := r.cluster
	if r.suppressed(KindConfigMap, -1) {
		return nil
	}
	entries, err := r.extraManifests()
	if err != nil {
		return r.fieldError("extraManifests", "%v", err)
	}
	build := func() (any, error) {
		return &corev1.ConfigMap{
			TypeMeta:   typeMeta("v1", KindConfigMap),
			ObjectMeta: r.meta(KindConfigMap, c.ClusterName, c.ClusterName),
		}, nil
	}
	// The data goes straight into the content, as converting the typed
	// ConfigMap's would give it (a string per key, no key when empty),
	// without a typed map made and converted for every site.
	complete := func(content map[string]any) {
		if len(entries) == 0 {
			return
		}
		data := make(map[string]any, len(entries))
		for k, e := range entries {
			data[k] = e.text
		}
		content["data"] = data
	}
	// An override's own data keys win over same-named manifests.
	finish := func(content map[string]any) {
		data := ensureMap(content, "data")
		for k, e := range entries {
			if _, ok := data[k]; !ok {
				data[k] = e.text
			}
		}
	}
	_, err = r.emitContent(KindConfigMap, -1, build, hooks{complete: complete, finish: finish})
	return err
}

// siteConfigMap renders the v2 site ConfigMap (the generator's
// clusterCRsV2.go). A ConfigMap crTemplate applies to it as to the
// extra-manifest ConfigMap, when it renders its name and namespace.
func (r *siteRender) siteConfigMap() error {
	scm := r.data.SiteConfigMap
	if scm == nil || scm.Name == "" {
		return nil // no site ConfigMap without a name or data
	}
	build := func() (any, error) {
		md := r.meta(KindConfigMap, scm.Name, scm.Namespace)
		md.Annotations[AnnotationSyncWave] = itoa(siteConfigMapWave)
		return &corev1.ConfigMap{TypeMeta: typeMeta("v1", KindConfigMap), ObjectMeta: md, Data: scm.Data}, nil
	}
	complete := func(content map[string]any) {
		if scm.Data != nil && len(scm.Data) == 0 {
			content["data"] = map[string]any{} // written as set
		}
	}
	_, err := r.emitContent(KindConfigMap, -1, build, hooks{complete: complete})
	return err
}
