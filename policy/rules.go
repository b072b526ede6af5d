package policy

import (
	"embed"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/siteops/siteops/policy/report"
)

// builtinFS holds the built-in rule library: one file per rule, each its
// own package under siteops.rules with its metadata in a package-scoped
// METADATA block, plus helper packages (siteops.lib) without metadata.
//
//go:embed rules/*.rego
var builtinFS embed.FS

// builtinRoot is the package every built-in rule lives under; user
// policies may not use it.
var builtinRoot = ast.MustParseRef("data.siteops")

// rulesRoot is the package of built-in rules.
var rulesRoot = ast.MustParseRef("data.siteops.rules")

// Engine-internal rules: findings the engine makes itself, not Rego.
const (
	RuleSiteLoad        = "site.load"
	RuleSiteLoadWarning = "site.load-warning"
	RulePolicyTimeout   = "policy.timeout"
	RulePolicyError     = "policy.error"
	RuleWaiver          = "policy.waiver"
)

// ruleInfo is a rule with what the engine needs to query it.
type ruleInfo struct {
	report.Rule
	// Description is the longer text of docs/rules.md.
	Description string
	// ref is the rule set queried, e.g. data.siteops.rules.vips.deny;
	// nil for engine-internal rules.
	ref ast.Ref
	// user is set for user rules, whose results may be strings.
	user bool
	// file is the built-in rule's source file; empty for engine rules.
	file string
}

// internalRules are the rules the engine applies itself.
var internalRules = []ruleInfo{
	{Rule: report.Rule{ID: RuleSiteLoad, Severity: report.Deny, Title: "Site loads", Source: "builtin",
		Remediation: "Fix the file, line and field the message names; every other site is still checked.",
		Reference:   "sites package: the checks of the SiteConfig generator (openshift-kni/cnf-features-deploy ztp/siteconfig-generator/siteConfig/siteConfig.go, siteConfigBuilder.go validateSiteConfig) and of the ClusterInstance webhook (stolostron/siteconfig api/v1alpha1/clusterinstance_validation.go); docs/siteconfig.md, docs/clusterinstance.md"},
		Description: "A site that cannot be read (broken YAML, a field of the wrong type, a check the upstream generator or webhook applies) is not rendered or checked by the rules; its load problems are findings, so that it fails the check."},
	{Rule: report.Rule{ID: RuleSiteLoadWarning, Severity: report.Warn, Title: "Site loads without warnings", Source: "builtin",
		Remediation: "Remove or correct the field the message names (an unknown field is usually a typo: the message suggests the nearest known name).",
		Reference:   "sites package: the fields of SiteConfig (openshift-kni/cnf-features-deploy ztp/siteconfig-generator/siteConfig/siteConfig.go) and of ClusterInstance (stolostron/siteconfig api/v1alpha1/clusterinstance_types.go); docs/siteconfig.md, docs/clusterinstance.md"},
		Description: "Load warnings (unknown fields, settings siteops does not render) do not stop a site, but they usually mean the site does not say what its author meant."},
	{Rule: report.Rule{ID: RulePolicyTimeout, Severity: report.Deny, Title: "Policies finish in time", Source: "builtin",
		Remediation: "Find the user policy that loops or scans too much for this site (run it alone with opa eval --profile), or raise the per-site time limit.",
		Reference:   "docs/policy.md, Sandbox: a per-site evaluation time limit"},
		Description: "Evaluation of one site is bounded in time; a site whose evaluation is cut off fails the check instead of passing unchecked."},
	{Rule: report.Rule{ID: RulePolicyError, Severity: report.Deny, Title: "Policies evaluate without error and within their bounds", Source: "builtin",
		Remediation: "Fix the user policy at the file and line the message names: a complete rule with two values, a built-in call over the bounds of the sandbox (docs/policy.md, Sandbox), or a policy that needs more memory than the budget.",
		Reference:   "docs/policy.md, Sandbox"},
		Description: "A user policy that fails while it evaluates a site (a conflict, a result that is not a string or an object with a string msg, a built-in call over the sandbox's bounds, more memory than the budget, a panic of the evaluator) fails that site, with where the policy went wrong; the other sites are checked as usual."},
	{Rule: report.Rule{ID: RuleWaiver, Severity: report.Deny, Title: "Waivers give a rule and a reason", Source: "builtin",
		Remediation: `Write each waiver as "<rule-id>: <reason>", one per line (or separated by commas), naming a rule siteops knows.`,
		Reference:   "docs/policy.md, Waivers"},
		Description: "The siteops.io/waive annotation waives a rule for one site, and the reason is reported with every waived finding. A waiver without a reason, or one that names no known rule, waives nothing and is itself a finding."},
	{Rule: report.Rule{ID: RuleImmutableField, Severity: report.Deny, Title: "A site that has started installing keeps its immutable fields", Source: "builtin",
		Remediation: "Put the field back as it was (the message gives the old value); to change it, reinstall the cluster: delete the site, let it be torn down, and add it again.",
		Reference:   "openshift/assisted-service pkg/webhooks/hiveextension/v1beta1/agentclusterinstall_validation_hook.go (AgentClusterInstall spec immutable once installation started), pkg/webhooks/agentinstall/v1beta1/infraenv_admission_hook.go (InfraEnv cpuArchitecture), internal/controller/controllers/agent_controller.go updateIfNeeded (Agent updates), internal/cluster/cluster.go VerifyClusterUpdatability (install-config overrides only before installation); stolostron/siteconfig api/v1alpha1/clusterinstance_validation.go (paths that may change after provisioning or with a reinstall); docs/policy.md, Change rules"},
		Description: "Needs the previous revision (siteops check --base REV, or the loop). For each site whose installation has started (by the status the loop commits: phase Installing, Installed or Failed, or a cluster state from preparing-for-installation on), the fields the installer will not take any more are compared with the previous revision: cluster name, base domain, image set, network type, cluster, machine and service networks, VIPs, platform type, SSH key, proxy, install-config overrides and CPU architecture, and for each host that has started installing its boot MAC, BMC address, interface MACs, role and root device hints. Upstream reports such a change only after it is applied, as a webhook refusal or a condition; here each changed field is a finding with its old and new value. Hosts added or removed are day-2 changes and are allowed."},
	{Rule: report.Rule{ID: RuleDeletionBudget, Severity: report.Deny, Title: "A change deletes no more sites than the deletion budget", Source: "builtin",
		Remediation: "If the deletions are intended, mark the change with --allow-deletions N (N at least the number of sites deleted); otherwise restore the sites (a moved or renamed file, a kustomization that lost a resource).",
		Reference:   "docs/policy.md, Change rules: the deletion budget (10 % of the fleet or 5 sites, whichever is larger)"},
		Description: "Needs the previous revision (siteops check --base REV, or the loop). A site that is in the previous revision and not in this one is deleted, and the loop tears it down when pruning is on. One change deleting more sites than max(10 % of the fleet, 5) is more often a mistake (a kustomization that lost a resource, a bad merge) than a plan, so each deleted site is a finding, with the file it was defined in, unless the change is marked as intending that many deletions. A site that fails to load is not counted as deleted: its load problem is the finding."},
}

// conftest's rule names (open-policy-agent/conftest policy/engine.go).
var (
	denyName = regexp.MustCompile(`^(deny|violation)(_[a-zA-Z0-9]+)*$`)
	warnName = regexp.MustCompile(`^warn(_[a-zA-Z0-9]+)*$`)
)

// loadBuiltins parses the embedded library.
func loadBuiltins() (map[string]*ast.Module, error) {
	files, err := fs.Glob(builtinFS, "rules/*.rego")
	if err != nil {
		return nil, fmt.Errorf("list built-in rules: %w", err)
	}
	mods := make(map[string]*ast.Module, len(files))
	for _, f := range files {
		src, err := builtinFS.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("read built-in rule %s: %w", f, err)
		}
		m, err := ast.ParseModuleWithOpts("policy/"+f, string(src), parserOptions())
		if err != nil {
			return nil, fmt.Errorf("parse built-in rule: %w", err)
		}
		mods["policy/"+f] = m
	}
	return mods, nil
}

func parserOptions() ast.ParserOptions {
	return ast.ParserOptions{ProcessAnnotation: true, RegoVersion: ast.RegoV1, Capabilities: capabilities()}
}

// builtinRules reads the rule metadata of the compiled built-in packages:
// every package under siteops.rules must declare id, title, severity,
// remediation and reference, and have exactly the deny or warn set its
// severity says.
func builtinRules(c *ast.Compiler, mods map[string]*ast.Module) ([]ruleInfo, error) {
	var out []ruleInfo
	seen := map[string]string{}
	for _, file := range slices.Sorted(maps.Keys(mods)) {
		m := mods[file]
		if !m.Package.Path.HasPrefix(rulesRoot) {
			continue
		}
		a := c.GetAnnotationSet().GetPackageScope(m.Package)
		if a == nil {
			return nil, fmt.Errorf("%s: built-in rule package has no METADATA block", file)
		}
		get := func(k string) string { s, _ := a.Custom[k].(string); return strings.TrimSpace(s) }
		r := ruleInfo{Rule: report.Rule{ID: get("id"), Severity: report.Severity(get("severity")), Title: a.Title,
			Remediation: get("remediation"), Reference: get("reference"), Source: "builtin"},
			Description: strings.TrimSpace(a.Description), file: file}
		if r.ID == "" || r.Title == "" || r.Remediation == "" || r.Reference == "" {
			return nil, fmt.Errorf("%s: METADATA needs title and custom id, severity, remediation and reference", file)
		}
		if other, dup := seen[r.ID]; dup {
			return nil, fmt.Errorf("%s: rule id %s is also declared in %s", file, r.ID, other)
		}
		seen[r.ID] = file
		var sets []string
		for _, rule := range m.Rules {
			if n := rule.Head.Name.String(); (n == "deny" || n == "warn" || n == "info") && !slices.Contains(sets, n) {
				sets = append(sets, n)
			}
		}
		if len(sets) != 1 || sets[0] != string(r.Severity) {
			return nil, fmt.Errorf("%s: rule %s has severity %q but defines %v; a built-in package defines exactly one of deny, warn or info, matching its severity",
				file, r.ID, r.Severity, sets)
		}
		r.ref = m.Package.Path.Append(ast.StringTerm(sets[0]))
		out = append(out, r)
	}
	return out, nil
}

// userRules finds the conftest-style rules of the user modules under the
// namespace: deny, violation and warn, with or without _suffix.
func userRules(c *ast.Compiler, mods map[string]*ast.Module, namespace ast.Ref) []ruleInfo {
	var out []ruleInfo
	seen := map[string]bool{}
	for _, file := range slices.Sorted(maps.Keys(mods)) {
		m := mods[file]
		if !m.Package.Path.HasPrefix(namespace) {
			continue
		}
		pkg := strings.TrimPrefix(m.Package.Path.String(), "data.")
		for _, rule := range m.Rules {
			ref := rule.Head.Ref()
			if len(ref) != 1 {
				continue // deny.x contains ...: not a conftest rule name
			}
			name := rule.Head.Name.String()
			sev := report.Deny
			switch {
			case denyName.MatchString(name):
			case warnName.MatchString(name):
				sev = report.Warn
			default:
				continue
			}
			id := pkg + "." + name
			if seen[id] {
				continue
			}
			seen[id] = true
			r := ruleInfo{Rule: report.Rule{ID: id, Severity: sev, Title: name, Source: file},
				ref: m.Package.Path.Append(ast.StringTerm(name)), user: true}
			for _, a := range c.GetAnnotationSet().Chain(rule) {
				if a.Annotations == nil {
					continue
				}
				if r.Title == name && a.Annotations.Title != "" {
					r.Title = a.Annotations.Title
				}
				if s, ok := a.Annotations.Custom["remediation"].(string); ok && r.Remediation == "" {
					r.Remediation = s
				}
				if s, ok := a.Annotations.Custom["reference"].(string); ok && r.Reference == "" {
					r.Reference = s
				}
				if r.Description == "" {
					r.Description = a.Annotations.Description
				}
			}
			out = append(out, r)
		}
	}
	return out
}
