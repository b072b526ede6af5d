package convert

import (
	"fmt"
	"slices"

	"github.com/siteops/siteops/internal/tomap"
	"github.com/siteops/siteops/sites"
)

// Node rows of the mapping table (mapping.go). The SiteConfig generator
// checked none of these values; ClusterInstance's CRD and webhook check
// several (stolostron/siteconfig api/v1alpha1/clusterinstance_types.go and
// api/v1alpha1/clusterinstance_webhook.go), so a value they would reject
// stops the conversion with the SiteConfig field to fix.

// required reports whether a string the CRD requires is set, and fails
// the conversion when it is not.
func (c *converter) required(i int, field, value string) bool {
	if value == "" {
		c.fail(c.nodePath(i, field), fmt.Sprintf("set %s on this node", field),
			"%s is empty, and ClusterInstance requires it", field)
		return false
	}
	return true
}

func (c *converter) hostName(i int) {
	if h := c.cluster.Nodes[i].HostName; c.required(i, "hostName", h) {
		c.node(i)["hostName"] = h
	}
}

func (c *converter) bmcAddress(i int) {
	if a := c.cluster.Nodes[i].BmcAddress; c.required(i, "bmcAddress", a) {
		c.node(i)["bmcAddress"] = a
	}
}

func (c *converter) bmcCredentials(i int) {
	if name := c.cluster.Nodes[i].BmcCredentialsName.Name; c.required(i, "bmcCredentialsName.name", name) {
		c.node(i)["bmcCredentialsName"] = map[string]any{"name": name}
	}
}

func (c *converter) bootMAC(i int) {
	mac := c.cluster.Nodes[i].BootMACAddress
	switch {
	case !c.required(i, "bootMACAddress", mac):
	case !sites.ValidMAC(mac):
		c.fail(c.nodePath(i, "bootMACAddress"), "write six hex pairs separated by ':', e.g. 52:54:00:12:34:56",
			"bootMACAddress is not a MAC address in the form ClusterInstance requires")
	default:
		c.node(i)["bootMACAddress"] = mac
	}
}

// The CRD's enumerations for values the generator copied unchecked.
var (
	cleaningModes = []string{"metadata", "disabled"}
)

func (c *converter) enum(i int, field, value string, allowed []string) {
	if !slices.Contains(allowed, value) {
		c.fail(c.nodePath(i, field), "use one of "+quoteList(allowed),
			"%s is not a value ClusterInstance accepts", field)
		return
	}
	c.node(i)[field] = value
}

func (c *converter) bootMode(i int) {
	c.enum(i, "bootMode", c.cluster.Nodes[i].BootMode, sites.BootModes)
}

func (c *converter) cleaningMode(i int) {
	c.enum(i, "automatedCleaningMode", c.cluster.Nodes[i].AutomatedCleaningMode, cleaningModes)
}

func (c *converter) rootDeviceHints(i int) {
	if h := c.cluster.Nodes[i].RootDeviceHints; len(h) > 0 {
		c.node(i)["rootDeviceHints"] = tomap.Copy(h)
	}
}

func (c *converter) nodeNetwork(i int) {
	nn := c.cluster.Nodes[i].NodeNetwork
	if len(nn.Config) == 0 && len(nn.Interfaces) == 0 {
		return
	}
	out := map[string]any{}
	if len(nn.Config) > 0 {
		out["config"] = tomap.Copy(nn.Config)
	}
	if len(nn.Interfaces) > 0 {
		ifs := make([]any, len(nn.Interfaces))
		for j, itf := range nn.Interfaces {
			if !sites.ValidMAC(itf.MacAddress) {
				c.fail(c.nodePath(i, fmt.Sprintf("nodeNetwork.interfaces[%d].macAddress", j)),
					"write six hex pairs separated by ':'", "macAddress is not a MAC address in the form ClusterInstance requires")
			}
			ifs[j] = map[string]any{"name": itf.Name, "macAddress": itf.MacAddress}
		}
		out["interfaces"] = ifs
	}
	c.node(i)["nodeNetwork"] = out
}

func (c *converter) nodeLabels(i int) {
	if l := c.cluster.Nodes[i].NodeLabels; len(l) > 0 {
		c.node(i)["nodeLabels"] = stringMap(l)
	}
}

// jsonField copies a string the ClusterInstance webhook requires to be JSON.
func (c *converter) jsonField(i int, field, value string) {
	if value == "" {
		return
	}
	if !validJSON(value) {
		c.fail(c.nodePath(i, field), "write it as JSON",
			"%s is not valid JSON; the SiteConfig generator copied it as is, the ClusterInstance webhook rejects it", field)
		return
	}
	c.node(i)[field] = value
}

func (c *converter) installerArgs(i int) {
	c.jsonField(i, "installerArgs", c.cluster.Nodes[i].InstallerArgs)
}

func (c *converter) nodeIgnitionOverride(i int) {
	c.jsonField(i, "ignitionConfigOverride", c.cluster.Nodes[i].IgnitionConfigOverride)
}

// role: SiteConfig counted "" and "master" as masters and anything else as
// a worker, writing the raw value into the BareMetalHost's role annotation
// (cnf-features-deploy
// ztp/siteconfig-generator/siteConfig/siteConfigBuilder.go);
// ClusterInstance takes master, worker or arbiter, and an arbiter needs
// clusterType HighlyAvailableArbiter.
func (c *converter) role(i int) {
	n := &c.cluster.Nodes[i]
	path := c.nodePath(i, "role")
	switch {
	case n.Role == sites.RoleMaster || n.Role == sites.RoleWorker:
		c.node(i)["role"] = n.Role
	case n.Role == "":
		c.node(i)["role"] = sites.RoleMaster
		c.note(path, Changed, `an empty role counted as master but left the BareMetalHost without a role annotation; written as master, so the annotation now says master`)
	default:
		c.node(i)["role"] = sites.RoleWorker
		msg := "this role counted as a worker, and the BareMetalHost's role annotation carried it as written; ClusterInstance roles are master, worker and arbiter, so it is written as worker and the annotation now says worker"
		if n.Role == sites.RoleArbiter {
			msg += " (a ClusterInstance arbiter node also needs clusterType HighlyAvailableArbiter: set both by hand if an arbiter was meant)"
		} else {
			msg += fmt.Sprintf(" (add a nodeLabels entry such as node-role.kubernetes.io/%s: \"\" if the role named a node label)", n.Role)
		}
		c.note(path, Changed, "%s", msg)
	}
}

// ironicInspect: SiteConfig's default "enabled" is ClusterInstance's ""
// (the CRD has no "enabled"); "disabled" is the same in both.
func (c *converter) ironicInspect(i int) {
	v := c.cluster.Nodes[i].IronicInspect
	if v == "disabled" {
		c.node(i)["ironicInspect"] = v
		return
	}
	// Only a value written in the file is worth a note; the default
	// carries over silently because its meaning does not change.
	if c.written(c.nodePath(i, "ironicInspect"), c.nodePath(i, "")) {
		c.note(c.nodePath(i, "ironicInspect"), Renamed,
			`ClusterInstance spells "inspection on" as an empty ironicInspect (the CRD has no "enabled"): left out, which means the same`)
	}
}

// userData went into the BareMetalHost's spec; the default node templates
// have no place for it.
func (c *converter) userData(i int) {
	if len(c.cluster.Nodes[i].UserData) == 0 {
		return
	}
	c.note(c.nodePath(i, "userData"), Dropped,
		"ClusterInstance has no userData, so the BareMetalHost loses spec.userData: to keep it, copy ai-node-templates-v1 into a custom node template set that sets userData and list it in this node's templateRefs")
}

func (c *converter) cpuset(i int) {
	if c.cluster.Nodes[i].Cpuset == "" {
		return
	}
	c.note(c.nodePath(i, "cpuset"), Dropped,
		"ClusterInstance has no cpuset: the workload-partitioning MachineConfig the SiteConfig generated from it belongs in the extra-manifest ConfigMap; better, set cpuPartitioningMode: AllNodes and give the CPU sets in a PerformanceProfile")
}

func (c *converter) diskPartition(i int) {
	if len(c.cluster.Nodes[i].DiskPartition) == 0 {
		return
	}
	c.note(c.nodePath(i, "diskPartition"), Dropped,
		"ClusterInstance has no diskPartition: the SiteConfig used it only as data for extra-manifest templates, so keep the partition MachineConfig they produced in the extra-manifest ConfigMap, or partition with this node's ignitionConfigOverride")
}
