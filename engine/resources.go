package engine

import (
	"cmp"
	"slices"

	"github.com/siteops/siteops/render"
)

// resourceRank puts a site's cluster objects first in its status, then its
// InfraEnvs, Agents and BareMetalHosts, then every other kind by name:
// the order both engines list Resources in.
func resourceRank(kind string) int {
	switch kind {
	case render.KindClusterDeployment:
		return 0
	case render.KindAgentClusterInstall:
		return 1
	case render.KindInfraEnv:
		return 2
	case "Agent":
		return 3
	case render.KindBareMetalHost:
		return 4
	}
	return 5
}

// CompareResources orders two objects of a status by kind rank, kind,
// namespace and name. Agents compare equal to each other: they keep the
// order of their hosts.
func CompareResources(aKind, aNS, aName, bKind, bNS, bName string) int {
	if c := cmp.Compare(resourceRank(aKind), resourceRank(bKind)); c != 0 {
		return c
	}
	switch {
	case aKind != bKind:
		return cmp.Compare(aKind, bKind)
	case aKind == "Agent":
		return 0
	case aNS != bNS:
		return cmp.Compare(aNS, bNS)
	}
	return cmp.Compare(aName, bName)
}

// SortResources sorts a status's objects in place (CompareResources).
func SortResources(rs []ResourceStatus) {
	slices.SortStableFunc(rs, func(a, b ResourceStatus) int {
		return CompareResources(a.Kind, a.Namespace, a.Name, b.Kind, b.Namespace, b.Name)
	})
}
