package engine

import "sort"

// resourceRank puts a site's cluster objects first in its status, then its
// InfraEnvs, Agents and BareMetalHosts, then every other kind by name:
// the order both engines list Resources in.
var resourceRank = map[string]int{
	"ClusterDeployment":   0,
	"AgentClusterInstall": 1,
	"InfraEnv":            2,
	"Agent":               3,
	"BareMetalHost":       4,
}

// CompareResources orders two objects of a status by kind rank, kind,
// namespace and name. Agents compare equal to each other: they keep the
// order of their hosts.
func CompareResources(aKind, aNS, aName, bKind, bNS, bName string) int {
	rank := func(k string) int {
		if r, ok := resourceRank[k]; ok {
			return r
		}
		return len(resourceRank)
	}
	switch {
	case rank(aKind) != rank(bKind):
		return rank(aKind) - rank(bKind)
	case aKind != bKind:
		return cmpString(aKind, bKind)
	case aKind == "Agent":
		return 0
	case aNS != bNS:
		return cmpString(aNS, bNS)
	}
	return cmpString(aName, bName)
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// SortResources sorts a status's objects in place (CompareResources).
func SortResources(rs []ResourceStatus) {
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		return CompareResources(a.Kind, a.Namespace, a.Name, b.Kind, b.Namespace, b.Name) < 0
	})
}
