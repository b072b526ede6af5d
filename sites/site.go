package sites

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
)

// Format names an input format.
type Format string

const (
	// FormatSiteConfigV1 is ran.openshift.io/v1 SiteConfig.
	FormatSiteConfigV1 Format = "ran.openshift.io/v1/SiteConfig"
	// FormatSiteConfigV2 is ran.openshift.io/v2 SiteConfig: v1 plus the
	// site ConfigMap and the list form of manifestsConfigMapRefs.
	FormatSiteConfigV2 Format = "ran.openshift.io/v2/SiteConfig"
	// FormatClusterInstance is siteconfig.open-cluster-management.io/v1alpha1
	// ClusterInstance, one cluster per document.
	FormatClusterInstance Format = "siteconfig.open-cluster-management.io/v1alpha1/ClusterInstance"
)

// siteConfigVersions maps a SiteConfig apiVersion to its format.
var siteConfigVersions = map[string]Format{
	"ran.openshift.io/v1": FormatSiteConfigV1,
	"ran.openshift.io/v2": FormatSiteConfigV2,
}

// Formats lists the input formats siteops reads.
func Formats() []Format {
	return []Format{FormatSiteConfigV1, FormatSiteConfigV2, FormatClusterInstance}
}

// Site is one cluster to install, with everything needed to render it: the
// decoded definition, where each field came from, and the contents of the
// files it refers to.
type Site struct {
	// Name is the cluster name; it names the namespace and most resources.
	Name string
	// Namespace is the namespace its namespaced resources go to.
	Namespace string
	Format    Format
	// Source is where the cluster is defined.
	Source Position
	// Config is the whole SiteConfig document; clusters of one file share
	// it. Nil for a ClusterInstance.
	Config *SiteConfig
	// Cluster is this site's cluster, Config.Spec.Clusters[Index]. Nil for
	// a ClusterInstance.
	Cluster *Clusters
	Index   int
	// Instance is the ClusterInstance document; nil for a SiteConfig.
	Instance *ClusterInstance
	// Files holds the referenced files (extra manifests, crTemplates, BIOS
	// profiles), read at load time so that rendering does no I/O.
	Files *Files
	// BaseDir is the directory, inside the fleet root, that relative
	// paths of the site resolve against: the fleet root, or the directory
	// of the kustomization that lists the site as a generator.
	BaseDir string

	fields map[string]Position
	// model is the normalized site, built by Model on first use.
	model atomic.Pointer[Model]
}

// join resolves a path written in the site against its base directory.
// RootPath then refuses anything that leaves the fleet root.
func (s *Site) join(p string) string {
	if p == "" || path.IsAbs(p) || filepath.IsAbs(p) || s.BaseDir == "" || s.BaseDir == "." {
		return p
	}
	return path.Join(s.BaseDir, p)
}

// identity is the kind/namespace/name of the document that defines the site.
func (s *Site) identity() string {
	if s.Instance != nil {
		return "ClusterInstance/" + s.Instance.Metadata.Namespace + "/" + s.Instance.Metadata.Name
	}
	return "SiteConfig/" + s.Config.Metadata.Namespace + "/" + s.Config.Metadata.Name
}

// Spec returns the site-level settings.
func (s *Site) Spec() *Spec { return &s.Config.Spec }

// FieldPath returns the document path of a field of this site's cluster,
// e.g. FieldPath("nodes[0].bmcAddress").
func (s *Site) FieldPath(field string) string {
	p := "spec"
	if s.Instance == nil {
		p = fmt.Sprintf("spec.clusters[%d]", s.Index)
	}
	if field == "" {
		return p
	}
	if strings.HasPrefix(field, "[") {
		return p + field
	}
	return p + "." + field
}

// Pos returns where a field (a document path such as
// "spec.clusters[0].nodes[1].bmcAddress") is defined. For a field that is not
// set it returns the position of its closest parent that is.
func (s *Site) Pos(path string) Position { return closestPos(s.fields, path, s.Source) }

// closestPos returns the position of path, or of its closest parent that
// has one, or fallback.
func closestPos(fields map[string]Position, path string, fallback Position) Position {
	for path != "" {
		if p, ok := fields[path]; ok {
			return p
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return fallback
}

// Problem returns an error-severity problem about a field of this site.
func (s *Site) Problem(path, format string, args ...any) Problem {
	return Problem{Pos: s.Pos(path), Severity: SeverityError, Site: s.Name, Field: path,
		Message: fmt.Sprintf(format, args...)}
}

// Masters returns the number of control-plane nodes.
func (s *Site) Masters() int {
	if s.Instance != nil {
		return s.Instance.Spec.Count(RoleMaster)
	}
	return int(s.Cluster.NumMasters)
}

// IsMaster reports whether a node is a control-plane node.
func IsMaster(n *Nodes) bool { return n.Role == "" || n.Role == RoleMaster }

// Roles returns the distinct node roles as written, in the order they first
// appear. An explicit empty role stays empty, as the generator keeps it for
// template keys and data.
func (s *Site) Roles() []string {
	var roles []string
	if s.Instance != nil {
		for i := range s.Instance.Spec.Nodes {
			if r := s.Instance.Spec.Nodes[i].Role; !slices.Contains(roles, r) {
				roles = append(roles, r)
			}
		}
		return roles
	}
	for i := range s.Cluster.Nodes {
		if r := s.Cluster.Nodes[i].Role; !slices.Contains(roles, r) {
			roles = append(roles, r)
		}
	}
	return roles
}
