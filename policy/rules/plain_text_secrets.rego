# METADATA
# title: No plain-text secret material in a site
# description: >-
#   Site files live in Git, are read by everyone with access to the
#   repository and are copied verbatim into rendered objects (annotations,
#   NMStateConfigs, BareMetalHosts) on the hub. Secrets belong in Secrets
#   referenced by name: the pull secret (pullSecretRef), the BMC credentials
#   (bmcCredentialsName). The rule looks at every value a site writes as free
#   text: the SSH key, the install-config and ignition overrides, installer
#   args, the proxy, BMC addresses, annotations, cluster and node labels, and
#   every string of the nmstate config. It reports PEM private keys,
#   pull-secret JSON ("auths"), credentials in a URL (user:password@, BMC
#   addresses included), keys named like a password, secret, token or PSK
#   with a value, and HTTP Authorization headers. Messages name the place,
#   never the value.
# custom:
#   id: ztp.secrets.plain-text
#   severity: deny
#   remediation: Remove the secret from the site (and from the Git history), rotate it, and keep it in a Secret created outside Git and referenced by name (pullSecretRef, bmcCredentialsName); a BMC address carries no user:password@ (put the BMC's user and password in a Secret with keys username and password, in the cluster's namespace, and name it in the node's bmcCredentialsName).
#   reference: stolostron/siteconfig api/v1alpha1/clusterinstance_types.go (pullSecretRef, bmcCredentialsName; Secret keys username and password); openshift-kni/cnf-features-deploy ztp/siteconfig-generator/siteConfig/siteConfig.go (Secrets referenced by name, never generated); openshift/assisted-service internal/controller/controllers/bmh_agent_controller.go (BMH annotations copied to the Agent)
package siteops.rules.plain_text_secrets

import data.siteops.lib

# Most sites hold nothing suspicious, and the rule runs on every site, so
# it first tests the JSON text of all the site's free-form values (except
# nmstate, below) at once for a few lower-case words, a superset of what it
# reports. Only when one appears is each value tested, and only a value that
# passes is searched in detail and gets a message. Walking every value, or
# matching regular expressions on each, would cost several times what the
# other rules cost together.
words := ["private", "auths", "@", "pass", "secret", "token", "key", "psk", "authorization", "data:"]

suspicious(t) if {
	l := lower(t)
	some w in words
	contains(l, w)
}

site_suspicious if suspicious(json.marshal([
	input.site.annotations, input.site.cluster.labels, object.get(input.site.cluster, "proxy", {}),
	input.site.cluster.installConfigOverrides, input.site.cluster.ignitionConfigOverride,
	[[n.labels, n.bmc.address, n.installerArgs, n.ignitionConfigOverride] | some n in input.site.nodes],
]))

# The SSH key: a public key has a comment (user@host), so only a private
# key is looked for.
deny contains f if {
	t := input.site.cluster.sshKey
	contains(t, "PRIVATE")
	some f in text_findings(t, input.site.fields.sshKey, "sshPublicKey")
}

# The values written as free text are looked at only when the site's
# text holds one of the words: most sites do not, and their check is then
# this one body.
deny contains f if {
	site_suspicious
	some f in free_text
}

# The proxy URLs.
free_text contains f if {
	some k, t in input.site.cluster.proxy
	suspicious(t)
	some f in text_findings(t, sprintf("%s.%s", [input.site.fields.proxy, k]), sprintf("proxy.%s", [k]))
}

# BMC addresses and installer args.
free_text contains f if {
	some node in input.site.nodes
	some name, t in {"bmcAddress": node.bmc.address, "installerArgs": node.installerArgs}
	suspicious(t)
	some f in text_findings(t, lib.node_field(node, name), sprintf("%s of node %s", [name, node.hostname]))
}

# JSON texts: the install-config and Ignition overrides, as text and as
# JSON.
free_text contains f if {
	some name in ["installConfigOverrides", "ignitionConfigOverride"]
	t := input.site.cluster[name]
	suspicious(t)
	some f in json_findings(t, input.site.fields[name], name)
}

free_text contains f if {
	some node in input.site.nodes
	t := node.ignitionConfigOverride
	suspicious(t)
	some f in json_findings(t, lib.node_field(node, "ignitionConfigOverride"), sprintf("ignitionConfigOverride of node %s", [node.hostname]))
}

# Flat maps: annotations, cluster labels, node labels.
free_text contains f if {
	some f in map_findings(input.site.annotations, input.site.fields.annotations, "annotation %s")
}

free_text contains f if {
	some f in map_findings(input.site.cluster.labels, input.site.fields.labels, "cluster label %s")
}

free_text contains f if {
	some node in input.site.nodes
	what := concat("", ["node label %s of node ", node.hostname])
	some f in map_findings(node.labels, lib.node_field(node, "nodeLabels"), what)
}

# nmstate: every string and every key of a config that has a section where
# nmstate takes secrets (802.1x private-key-password, ipsec psk, macsec
# mka-cak) or free text (dispatch scripts, ovs-db), or a top-level key other
# than the usual ones. nmstate refuses keys it does not know, so a secret
# elsewhere would not apply anyway.
deny contains f if {
	some node in input.site.nodes
	nmstate_suspicious(node.nmstate)
	field := lib.node_field(node, "nodeNetwork.config")
	what := sprintf("nodeNetwork.config of node %s", [node.hostname])
	some f in leaf_findings(node.nmstate, field, what) | key_findings(node.nmstate, field, what)
}

nmstate_suspicious(nm) if {
	object.remove(nm, {"interfaces", "routes", "dns-resolver", "route-rules"}) != {}
}

nmstate_suspicious(nm) if {
	some itf in nm.interfaces
	object.filter(itf, {"802.1x", "ipsec", "macsec", "dispatch", "ovs-db"}) != {}
}

text_findings(t, field, what) := {{"msg": sprintf("%s holds %s", [what, kind]), "field": field} |
	some kind in text_secrets(t)
}

json_findings(t, field, what) := text_findings(t, field, what) | doc if {
	json.is_valid(t)
	v := json.unmarshal(t)
	doc := (key_findings(v, field, what) | header_findings(v, field, what)) | data_url_findings(v, field, what)
} else := text_findings(t, field, what)

# leaf_findings are the strings of a structured value that hold secrets.
leaf_findings(v, field, what) := {{"msg": sprintf("%s holds %s at %s", [what, kind, path_string(path)]), "field": field} |
	walk(v, [path, t])
	is_string(t)
	some kind in text_secrets(t)
}

# key_findings are the keys of a structured value that name a secret and
# have a value.
key_findings(v, field, what) := {{"msg": sprintf("%s sets %s to a plain-text value", [what, path_string(path)]), "field": field} |
	walk(v, [path, x])
	count(path) > 0
	secret_key(path[count(path) - 1])
	not ipv6_token(path)
	filled(x)
}

# header_findings are HTTP headers that carry credentials (Ignition
# httpHeaders).
header_findings(v, field, what) := {{"msg": sprintf("%s sets an HTTP %s header at %s", [what, h.name, path_string(path)]), "field": field} |
	walk(v, [path, h])
	is_object(h)
	is_string(h.name)
	lower(h.name) in {"authorization", "proxy-authorization"}
	filled(object.get(h, "value", ""))
}

# data_url_findings are the contents of data: URLs (Ignition files) that
# hold secrets, decoded.
data_url_findings(v, field, what) := {{"msg": sprintf("%s holds %s in the data URL at %s", [what, kind, path_string(path)]), "field": field} |
	walk(v, [path, u])
	is_string(u)
	startswith(u, "data:")
	t := data_url(u)
	some kind in text_secrets(t)
}

# map_findings are the entries of a flat map (annotations, labels) whose
# key names a secret or whose value holds one. what is a format with the
# key's %s.
map_findings(m, path, what) := {{"msg": msg, "field": key_field(path, k)} |
	some k, t in m
	some msg in entry_problems(k, t, sprintf(what, [k]))
}

entry_problems(k, t, what) := {sprintf("%s has a plain-text value", [what]) |
	secret_key(k)
	filled(t)
} | {sprintf("%s holds %s", [what, kind]) |
	some kind in text_secrets(t)
}

# text_secrets names the kinds of secret material in a text.
text_secrets(t) := {kind |
	some kind, p in patterns
	contains(t, p.hint)
	regex.match(p.re, t)
}

patterns := {
	# Spaces may be URL-encoded (Ignition data: URLs).
	"a PEM private key": {"hint": "PRIVATE", "re": `-----BEGIN(( |%20)[A-Z0-9]+)*( |%20)PRIVATE( |%20)KEY(( |%20)BLOCK)?-----`},
	# "auths" as JSON, JSON inside a JSON string, or URL-encoded (data: URLs).
	"a pull secret (JSON with \"auths\")": {"hint": "auths", "re": `(\\?"|%22)auths(\\?"|%22)\s*(:|%3[Aa])`},
	"credentials in a URL (user:password@)": {"hint": "@", "re": `[A-Za-z][A-Za-z0-9+.-]*://[^/@:\s]*:[^/@\s]+@`},
}

# data_url is the decoded contents of a data: URL (RFC 2397); undefined when
# it does not decode.
data_url(u) := base64.decode(substring(u, i + 1, -1)) if {
	i := indexof(u, ",")
	endswith(substring(u, 0, i), ";base64")
} else := urlquery.decode(substring(u, i + 1, -1)) if {
	i := indexof(u, ",")
	i > 0
}

# secret_key holds for a key named like a secret: password, passwd,
# passphrase, secret, token, psk, apikey/api-key, access-key, mka-cak, in any
# case and with any prefix (db-password, adminPassword, pullSecret,
# private-key-password).
secret_key(k) if {
	is_string(k)
	regex.match(`(?i)(password|passwd|passphrase|secret|token|psk|api[-_]?key|access[-_]?key|mka-cak)$`, k)
}

# nmstate's ipv6.token is an interface identifier, not a credential.
ipv6_token(path) if {
	n := count(path)
	n >= 2
	path[n - 2] == "ipv6"
	path[n - 1] == "token"
}

filled(v) if {
	is_string(v)
	trim_space(v) != ""
}

filled(v) if is_number(v)

# key_field is the document path of a key of the map at path, as the
# loader writes it: keys with '.', '[' or ']' are quoted.
key_field(path, k) := sprintf("%s[%q]", [path, k]) if {
	regex.match(`[.\[\]]`, k)
} else := sprintf("%s.%s", [path, k])

# path_string writes a walk() path as interfaces[0].802-1x.password.
path_string(path) := concat("", [seg |
	some i, p in path
	seg := segment(i, p)
])

segment(_, p) := sprintf("[%d]", [p]) if is_number(p)

segment(i, p) := p if {
	is_string(p)
	i == 0
}

segment(i, p) := concat("", [".", p]) if {
	is_string(p)
	i > 0
}
