package sites

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Options of a decode or load.
type decodeOptions struct {
	strict bool
}

// decodeFile decodes every SiteConfig document of one file. Documents of
// other kinds are skipped. It returns one Site per cluster that decoded
// cleanly; every problem found stays with its cluster.
func decodeFile(file string, data []byte, o decodeOptions) ([]*Site, Problems) {
	var (
		out      []*Site
		problems Problems
	)
	docs := newDocumentReader(data)
	defer docs.release() // the sites are values of their own
	budget := newBudget()
	count := 0
	for doc := 0; ; doc++ {
		var root yaml.Node
		err := docs.next(&root)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			problems = append(problems, yamlProblem(file, data, err))
			break // the rest of the stream cannot be trusted
		}
		if len(root.Content) == 0 {
			continue
		}
		items := listItems(root.Content[0])
		for _, body := range items {
			count += sitesIn(body)
		}
		if count > MaxSitesPerFile {
			pos := Position{File: file, Line: root.Content[0].Line, Column: root.Content[0].Column}
			return nil, append(problems, Problem{Pos: pos, Severity: SeverityError,
				Message: fmt.Sprintf("the file holds more than %d sites (this document brings it to %d); none of its sites is loaded", MaxSitesPerFile, count),
				Hint:    fmt.Sprintf("split the file into files of at most %d sites", MaxSitesPerFile)})
		}
		var s []*Site
		var p Problems
		for _, body := range items {
			switch {
			case isSecret(body):
				registerSecretNode(body)
			case isClusterInstance(body):
				ss, pp := decodeClusterInstance(file, body, budget, o)
				s, p = append(s, ss...), append(p, pp...)
			case isSiteConfig(body):
				ss, pp := decodeSiteConfig(file, body, budget, o)
				s, p = append(s, ss...), append(p, pp...)
			}
		}
		if *budget < 0 {
			problems = append(problems, p...)
			break // the alias budget of the file is spent
		}
		out = append(out, s...)
		problems = append(problems, p...)
	}
	return out, problems
}

// MaxSitesPerFile is the most sites one file may define. Every site of a
// file is held at once while the file is decoded, so the bound keeps a
// file's memory within a few hundred megabytes whatever its size; real
// fleets keep a handful of clusters per file.
const MaxSitesPerFile = 1000

// sitesIn counts the sites a document defines: the clusters of a
// SiteConfig, one for a ClusterInstance, none for anything else.
func sitesIn(body *yaml.Node) int {
	switch {
	case isClusterInstance(body):
		return 1
	case isSiteConfig(body):
		spec := mappingValue(body, "spec")
		for spec != nil && spec.Kind == yaml.AliasNode {
			spec = spec.Alias
		}
		if spec == nil {
			return 0
		}
		c := mappingValue(spec, "clusters")
		for c != nil && c.Kind == yaml.AliasNode {
			c = c.Alias
		}
		if c != nil && c.Kind == yaml.SequenceNode {
			return len(c.Content)
		}
	}
	return 0
}

// listItems returns the items of a v1 List document (what `kubectl get -o
// yaml` writes), or the document itself.
func listItems(body *yaml.Node) []*yaml.Node {
	if k := mappingValue(body, "kind"); k != nil && k.Value == "List" {
		if items := mappingValue(body, "items"); items != nil && items.Kind == yaml.SequenceNode {
			return items.Content
		}
	}
	return []*yaml.Node{body}
}

// siteConfigGroup is the API group of SiteConfig.
const siteConfigGroup = "ran.openshift.io/"

// isSiteConfig reports whether a document is a SiteConfig: its kind says
// so, or its apiVersion is in the SiteConfig group. The generator never
// checks kind, so a document with a missing or misspelt kind is still read
// (and warned about) rather than silently skipped.
func isSiteConfig(body *yaml.Node) bool {
	if k := mappingValue(body, "kind"); k != nil && k.Value == "SiteConfig" {
		return true
	}
	av := mappingValue(body, "apiVersion")
	return av != nil && strings.HasPrefix(av.Value, siteConfigGroup)
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// yamlParserErrors are the messages of gopkg.in/yaml.v3's parser (as
// opposed to its scanner). For these it prints a 0-based line: the line
// where the broken construct starts, counted from 0.
var yamlParserErrors = []string{
	"did not find expected ',' or ']'", "did not find expected ',' or '}'",
	"did not find expected '-' indicator", "did not find expected <document start>",
	"did not find expected <stream-start>", "did not find expected key",
	"did not find expected node content", "found duplicate %TAG directive",
	"found duplicate %YAML directive", "found incompatible YAML document", "found undefined tag handle",
}

// yamlProblem turns a YAML syntax error into a problem at its line.
var unknownAnchor = regexp.MustCompile(`^yaml: unknown anchor '(.*)' referenced$`)

func yamlProblem(file string, data []byte, err error) Problem {
	msg := err.Error()
	p := Problem{Pos: Position{File: file}, Severity: SeverityError, Err: err,
		Hint: "fix the YAML syntax; every other file is still read"}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		p.Pos.Line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
		if slices.Contains(yamlParserErrors, msg) {
			p.Pos.Line++
		}
		// yaml.v3 gives no column: point at the first character of the
		// line that is not a space (a tab there is often the mistake).
		if lines := bytes.Split(data, []byte("\n")); p.Pos.Line >= 1 && p.Pos.Line <= len(lines) {
			ln := lines[p.Pos.Line-1]
			p.Pos.Column = len(ln) - len(bytes.TrimLeft(ln, " ")) + 1
		}
	} else {
		// yaml.v3 gives no line for an unknown anchor: find the alias.
		if m := unknownAnchor.FindStringSubmatch(msg); m != nil {
			if i := bytes.Index(data, []byte("*"+m[1])); i >= 0 {
				p.Pos.Line = bytes.Count(data[:i], []byte("\n")) + 1
				p.Pos.Column = i - bytes.LastIndexByte(data[:i], '\n')
			}
		}
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	p.Message = "not valid YAML: " + msg
	return p
}

func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// decodeSiteConfig decodes one SiteConfig document and checks what the upstream
// generator checks (openshift-kni/cnf-features-deploy
// ztp/siteconfig-generator/siteConfig/siteConfig.go and siteConfigBuilder.go),
// cluster by cluster.
func decodeSiteConfig(file string, body *yaml.Node, budget *int, o decodeOptions) ([]*Site, Problems) {
	d := newNodeDecoder(file, budget)
	sc := &SiteConfig{}
	docPos := d.position(body)
	if !d.decode(body, reflect.ValueOf(sc).Elem(), "") {
		return nil, d.problems
	}
	siteName := printableName(sc.Metadata.Name)
	broken := map[string]bool{}
	for _, p := range d.problems {
		if p.Severity == SeverityError {
			broken[p.Field] = true
		}
	}
	v := &validator{file: file, fields: d.pos, docPos: docPos, site: siteName, broken: broken}

	if sc.Kind != "SiteConfig" {
		v.warn("kind", "kind is %q; the document is read as a SiteConfig because of its apiVersion", clip(sc.Kind)).
			Hint = "write kind: SiteConfig"
	}
	format, ok := siteConfigVersions[sc.ApiVersion]
	if !ok {
		v.fail("apiVersion", "apiVersion %q is not a SiteConfig version siteops reads", clip(sc.ApiVersion)).
			Hint = "use ran.openshift.io/v1 or ran.openshift.io/v2"
	}
	if len(sc.Spec.Clusters) == 0 && !broken["spec.clusters"] {
		v.fail("spec.clusters", "no clusters are defined").Hint = "add at least one entry under spec.clusters"
	}
	v.checkCrTemplates("spec.crTemplates", sc.Spec.CrTemplates, crTemplateClusterKinds)

	// Attribute decode problems to the cluster they are in.
	problems := d.problems
	for i := range problems {
		problems[i].Site = siteName
		if idx, ok := clusterIndex(problems[i].Field); ok && idx < len(sc.Spec.Clusters) {
			if n := sc.Spec.Clusters[idx].ClusterName; n != "" {
				problems[i].Site = n
			}
		}
	}
	problems = append(problems, v.problems...)
	problems.strictify(o.strict)
	fileFailed := Problems(problems).failsOutside()

	names := map[string]int{}
	var out []*Site
	for i := range sc.Spec.Clusters {
		c := &sc.Spec.Clusters[i]
		cv := &validator{file: file, fields: d.pos, docPos: docPos, site: c.ClusterName, broken: broken}
		cp := fmt.Sprintf("spec.clusters[%d]", i)
		if c.ClusterName == "" {
			cv.site = fmt.Sprintf("%s/clusters[%d]", siteName, i)
			cv.fail(cp+".clusterName", "clusterName is missing").Hint = "every cluster needs a unique clusterName"
		} else if msg := nameProblem(c.ClusterName); msg != "" {
			cv.site = printableName(c.ClusterName)
			cv.fail(cp+".clusterName", "%s", msg).Hint = nameHint
		} else if first, dup := names[c.ClusterName]; dup {
			cv.fail(cp+".clusterName", "clusterName %q is already used by spec.clusters[%d] (%s)",
				clip(c.ClusterName), first, v.pos(fmt.Sprintf("spec.clusters[%d].clusterName", first))).Hint = "cluster names must be unique"
		} else {
			names[c.ClusterName] = i
		}
		normalizeCluster(c, sc)
		cv.checkCluster(cp, c, sc, format)
		cv.problems.strictify(o.strict)
		problems = append(problems, cv.problems...)
		if fileFailed || cv.problems.HasErrors() || clusterHasErrors(problems, i) {
			continue
		}
		out = append(out, &Site{
			Name: c.ClusterName, Namespace: c.ClusterName, Format: format,
			Source: v.pos(cp), Config: sc, Cluster: c, Index: i, fields: d.pos,
		})
	}
	return out, problems
}

// strictify turns warnings into errors under --strict. What a warning
// says is ignored is, as an error, not allowed.
func (ps Problems) strictify(strict bool) {
	if !strict {
		return
	}
	for i := range ps {
		if ps[i].Severity == SeverityWarning {
			ps[i].Severity = SeverityError
			ps[i].Message = strings.Replace(ps[i].Message, " is ignored", " is not allowed", 1) + " (--strict)"
		}
	}
}

// failsOutside reports whether an error lies outside every cluster, which
// makes the whole document unusable.
func (ps Problems) failsOutside() bool {
	for _, p := range ps {
		if _, in := clusterIndex(p.Field); p.Severity == SeverityError && !in {
			return true
		}
	}
	return false
}

func clusterHasErrors(ps Problems, idx int) bool {
	for _, p := range ps {
		if i, ok := clusterIndex(p.Field); ok && i == idx && p.Severity == SeverityError {
			return true
		}
	}
	return false
}

var clusterPath = regexp.MustCompile(`^spec\.clusters\[(\d+)\]`)

func clusterIndex(field string) (int, bool) {
	m := clusterPath.FindStringSubmatch(field)
	if m == nil {
		return 0, false
	}
	i, _ := strconv.Atoi(m[1])
	return i, true
}

// normalizeCluster derives what upstream derives after decoding: node counts,
// the cluster type, partition labels and the manifests ConfigMap references
// (the UnmarshalYAML methods of the generator's siteConfig.go).
func normalizeCluster(c *Clusters, sc *SiteConfig) {
	c.NumMasters, c.NumWorkers = 0, 0
	for i := range c.Nodes {
		if IsMaster(&c.Nodes[i]) {
			c.NumMasters++
		} else {
			c.NumWorkers++
		}
		for j := range c.Nodes[i].DiskPartition {
			for k := range c.Nodes[i].DiskPartition[j].Partitions {
				normalizePartition(&c.Nodes[i].DiskPartition[j].Partitions[k])
			}
		}
	}
	c.ClusterType = ClusterTypeStandard
	if c.NumMasters == 1 {
		c.ClusterType = ClusterTypeSNO
		c.NumWorkers = 0 // keeps the AgentClusterInstall unchanged by SNO expansion
	}
	if c.CPUPartitioning == "" {
		c.CPUPartitioning = CPUPartitioningNone
	}
	c.ManifestsConfigMapRefs = []ManifestsConfigMapReference{{Name: c.ClusterName}}
	if AcceleratedZTP(c) {
		c.ManifestsConfigMapRefs = append(c.ManifestsConfigMapRefs, ManifestsConfigMapReference{Name: c.ClusterName + "-aztp"})
	}
	if sc.ApiVersion != "ran.openshift.io/v2" {
		c.SiteConfigMap = nil // a v2 feature; v1 ignores it
	}
}

// AcceleratedZTPLabel switches on accelerated provisioning
// (isAcceleratedZTPEnabled in the generator's siteConfig.go).
const AcceleratedZTPLabel = "accelerated-ztp"

// AcceleratedZTP reports whether the cluster asks for accelerated ZTP.
func AcceleratedZTP(c *Clusters) bool {
	v := c.ClusterLabels[AcceleratedZTPLabel]
	return v == "full" || v == "partial"
}

func normalizePartition(p *Partitions) {
	if p.FileSystemFormat == "" {
		p.FileSystemFormat = DefaultFileSystemFormat
	}
	if p.MountPoint == "" {
		return
	}
	p.MountPoint = path.Clean(p.MountPoint)
	p.Label = strings.ReplaceAll(strings.TrimPrefix(p.MountPoint, "/"), "/", "-")
	p.MountFileName = systemdPathEscape(p.MountPoint) + ".mount"
}

// systemdPathEscape escapes a path the way systemd-escape --path does, which
// is how mount unit names are formed.
func systemdPathEscape(p string) string {
	p = strings.Trim(path.Clean(p), "/")
	if p == "" {
		return "-"
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '/':
			b.WriteByte('-')
		case c == '.' && i == 0, !(c == '_' || c == '.' || c == ':' ||
			'0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'):
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// validator collects the problems of one document or cluster.
type validator struct {
	file     string
	site     string
	fields   map[string]Position
	docPos   Position
	problems Problems
	// broken holds the fields that already failed to decode: checks on
	// them would only repeat the error.
	broken map[string]bool
}

func (v *validator) pos(path string) Position { return closestPos(v.fields, path, v.docPos) }

func (v *validator) fail(field, format string, args ...any) *Problem {
	v.problems = append(v.problems, Problem{Pos: v.pos(field), Severity: SeverityError,
		Site: v.site, Field: field, Message: fmt.Sprintf(format, args...)})
	return &v.problems[len(v.problems)-1]
}

func (v *validator) warn(field, format string, args ...any) *Problem {
	p := v.fail(field, format, args...)
	p.Severity = SeverityWarning
	return p
}

func (v *validator) checkCrTemplates(field string, m map[string]string, allowed []string) {
	for _, kind := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(allowed, kind) {
			v.fail(joinPath(field, kind), "%q is not a kind that can be overridden here", clip(kind)).
				Hint = "allowed: " + strings.Join(allowed, ", ")
		}
	}
}

// checkCluster applies the generator's own checks (siteConfig.go and
// validateSiteConfig in siteConfigBuilder.go).
func (v *validator) checkCluster(cp string, c *Clusters, sc *SiteConfig, format Format) {
	if c.NumMasters == 0 && !v.broken[cp+".nodes"] {
		v.fail(cp+".nodes", "the cluster has no master node (counted %d masters, %d other nodes)", c.NumMasters, len(c.Nodes)-int(c.NumMasters)).
			Hint = `at least one node needs role "master" (the default when role is left out)`
	}
	if c.ClusterImageSetNameRef == "" && sc.Spec.ClusterImageSetNameRef == "" {
		v.fail(cp+".clusterImageSetNameRef", "no image set: neither the cluster nor the site sets clusterImageSetNameRef").
			Hint = "set spec.clusterImageSetNameRef or the cluster's clusterImageSetNameRef"
	}
	if c.CPUPartitioning != CPUPartitioningNone && c.CPUPartitioning != CPUPartitioningAllNodes {
		v.fail(cp+".cpuPartitioningMode", "cpuPartitioningMode %q is not valid", clip(string(c.CPUPartitioning))).
			Hint = "use None or AllNodes"
	}
	if c.InstallConfigOverrides != "" {
		var obj map[string]any
		if err := json.Unmarshal([]byte(c.InstallConfigOverrides), &obj); err != nil {
			v.fail(cp+".installConfigOverrides", "installConfigOverrides is not a JSON object: %v", err).
				Hint = `write a JSON object, e.g. '{"fips": true}'`
		}
	}
	if !validJSONString(c.NetworkType) {
		v.fail(cp+".networkType", "networkType %q cannot be written into the install-config overrides", clip(c.NetworkType))
	}
	if c.ExtraManifests.Filter != nil {
		v.checkFilter(cp+".extraManifests.filter", c.ExtraManifests.Filter)
	}
	if format == FormatSiteConfigV1 {
		if _, set := v.fields[cp+".siteConfigMap"]; set {
			v.warn(cp+".siteConfigMap", "siteConfigMap is ignored by ran.openshift.io/v1").
				Hint = "use apiVersion ran.openshift.io/v2 to render the site ConfigMap"
		}
	}
	v.checkCrTemplates(cp+".crTemplates", c.CrTemplates, crTemplateClusterKinds)
	v.checkSiteConfigNetworks(cp, c)
	for i := range c.Nodes {
		v.checkNode(fmt.Sprintf("%s.nodes[%d]", cp, i), &c.Nodes[i], c)
	}
}

func validJSONString(s string) bool {
	b, err := json.Marshal(s)
	return err == nil && !bytes.Contains(b, []byte(`\ufffd`))
}

func (v *validator) checkFilter(field string, f *Filter) {
	def := "include"
	if f.InclusionDefault != nil {
		def = strings.ToLower(*f.InclusionDefault)
	}
	switch def {
	case "include":
		if len(f.Include) > 0 {
			v.fail(field+".include", "include must be empty when inclusionDefault is include").
				Hint = "list the files to drop under exclude, or set inclusionDefault: exclude"
		}
	case "exclude":
		if len(f.Exclude) > 0 {
			v.fail(field+".exclude", "exclude must be empty when inclusionDefault is exclude").
				Hint = "list the files to keep under include, or set inclusionDefault: include"
		}
	default:
		v.fail(field+".inclusionDefault", "inclusionDefault %q is not valid", clip(*f.InclusionDefault)).
			Hint = "use include or exclude"
	}
}

func (v *validator) checkNode(np string, n *Nodes, c *Clusters) {
	// The bare-metal operator's CRD refuses any other boot mode when the
	// BareMetalHost is applied: say so at load, with the field.
	if n.BootMode != "" && !v.broken[np+".bootMode"] {
		v.checkOneOf(np+".bootMode", n.BootMode, BootModes)
	}
	if n.IronicInspect != "enabled" && n.IronicInspect != "disabled" {
		v.fail(np+".ironicInspect", "ironicInspect %q is not valid", clip(n.IronicInspect)).Hint = "use enabled or disabled"
	}
	if len(n.DiskPartition) > 0 && c.ClusterType != ClusterTypeSNO {
		v.fail(np+".diskPartition", "diskPartition is only supported on single-node clusters").
			Hint = "remove diskPartition, or use it on an SNO"
	}
	for i, dp := range n.DiskPartition {
		for j, p := range dp.Partitions {
			pp := fmt.Sprintf("%s.diskPartition[%d].partitions[%d]", np, i, j)
			if p.Start < MinPartitionStart {
				v.fail(pp+".start", "start %d is too small", p.Start).Hint = fmt.Sprintf("it must be at least %d (MiB) to leave room for the root partition", MinPartitionStart)
			}
			if p.Size <= 0 {
				v.fail(pp+".size", "size must be greater than 0")
			}
			if p.MountPoint == "" {
				v.fail(pp+".mount_point", "mount_point is missing").Hint = "give an absolute path such as /var/lib/data"
			} else if !path.IsAbs(p.MountPoint) {
				v.fail(pp+".mount_point", "mount_point %q is not an absolute path", clip(p.MountPoint)).Hint = "give an absolute path such as /var/lib/data"
			}
		}
	}
	v.checkCrTemplates(np+".crTemplates", n.CrTemplates, crTemplateNodeKinds)
}
