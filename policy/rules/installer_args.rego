# METADATA
# title: Installer args are a JSON array of flags assisted-service allows
# description: >-
#   A node's installerArgs becomes the BareMetalHost annotation that the
#   baremetal agent controller copies to the Agent, and assisted-service
#   parses it as a JSON array of strings. An array that does not parse, a flag
#   outside its allow list (--append-karg, --delete-karg, -n, --copy-network,
#   --network-dir, --save-partlabel, --save-partindex, --image-url,
#   --image-file) or a value with characters outside its pattern (no spaces,
#   no shell metacharacters such as & | > ?) is refused with HTTP 400, and the
#   Agent stays SpecSynced=False with an InputError, after the site is
#   applied. Neither the SiteConfig generator nor the ClusterInstance webhook
#   (which only checks that it is JSON) looks at the flags.
# custom:
#   id: ztp.nodes.installer-args
#   severity: deny
#   remediation: Write installerArgs as a JSON array of strings using only --append-karg, --delete-karg, -n, --copy-network, --network-dir, --save-partlabel, --save-partindex, --image-url or --image-file, each flag's value in the next element, e.g. '["--append-karg", "rd.neednet=1"]'.
#   reference: openshift/assisted-service pkg/validations/validations.go (ValidateInstallerArgs) and internal/controller/controllers/bmh_agent_controller.go (installer-args annotation); stolostron/siteconfig api/v1alpha1/clusterinstance_types.go (installerArgs)
package siteops.rules.installer_args

import data.siteops.lib

allowed := {
	"--append-karg", "--delete-karg", "-n", "--copy-network", "--network-dir",
	"--save-partlabel", "--save-partindex", "--image-url", "--image-file",
}

# value_pattern is assisted-service's pattern for the arguments that are not
# flags, verbatim: "+-=" is the range from '+' to '=' (digits, ",-./:;<"
# among them).
value_pattern := `^[A-Za-z0-9@!#$%*()_+-=//.,";':{}\[\]]+$`

deny contains f if {
	some node in input.site.nodes
	node.installerArgs != ""
	some msg in problems(node.installerArgs)
	f := {"msg": sprintf("installerArgs of node %s: %s", [node.hostname, msg]), "field": lib.node_field(node, "installerArgs")}
}

problems(text) := {"it is not valid JSON"} if {
	not json.is_valid(text)
} else := {"it is not a JSON array of strings"} if {
	not strings_array(json.unmarshal(text))
} else := {msg |
	some arg in json.unmarshal(text)
	msg := arg_problem(arg)
}

strings_array(x) if {
	is_array(x)
	every a in x {
		is_string(a)
	}
}

arg_problem(arg) := msg if {
	startswith(arg, "-")
	not allowed[arg]
	msg := sprintf("flag %q is not one assisted-service allows%s", [arg, flag_hint(arg)])
}

arg_problem(arg) := msg if {
	not startswith(arg, "-")
	not regex.match(value_pattern, arg)
	msg := sprintf("value %q has characters assisted-service refuses (spaces, or one of & | > ? ~ ^ ` \\ and the like)", [arg])
}

# flag_hint points out the --flag=value form of an allowed flag.
flag_hint(arg) := sprintf(" (write %q and its value as two elements)", [flag]) if {
	i := indexof(arg, "=")
	i > 0
	flag := substring(arg, 0, i)
	allowed[flag]
} else := ""
