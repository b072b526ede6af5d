package convert

import (
	"context"
	"testing/fstest"

	"github.com/siteops/siteops/internal/yamlenc"
	"github.com/siteops/siteops/sites"
)

// selfCheck decodes the converted document with the sites package, which
// applies ClusterInstance's CRD schema and webhook checks. The explicit
// checks of the mapping should leave nothing for it to find; it is the
// guard for what they miss, so that Convert never hands out a document
// siteops itself would refuse. Its problems are pinned on the cluster in
// the SiteConfig, since they are about the converted document.
func selfCheck(site *sites.Site, doc map[string]any) sites.Problems {
	data, err := yamlenc.Marshal(doc)
	if err != nil {
		return sites.Problems{site.Problem(site.FieldPath(""), "encoding the ClusterInstance: %v", err)}
	}
	const name = "clusterinstance.yaml"
	fleet, err := sites.Load(context.Background(), fstest.MapFS{name: {Data: data}}, []string{name}, sites.WithWorkers(1))
	if err != nil {
		return sites.Problems{site.Problem(site.FieldPath(""), "checking the ClusterInstance: %v", err)}
	}
	var out sites.Problems
	for _, p := range fleet.Problems {
		if p.Severity != sites.SeverityError {
			continue
		}
		q := site.Problem(site.FieldPath(""), "the converted ClusterInstance fails its own checks at %s: %s", p.Field, p.Message)
		q.Hint = p.Hint
		out = append(out, q)
	}
	if len(out) == 0 && len(fleet.Sites) != 1 {
		out = append(out, site.Problem(site.FieldPath(""), "the converted ClusterInstance does not load back as one cluster"))
	}
	return out
}
