// Package policy checks sites with an embedded OPA (Rego v1): the built-in
// ZTP rule library in rules/ (embedded with go:embed), conftest-compatible
// user policies, waivers, and fleet-wide rules. It has no flags and prints
// nothing; report/ holds the result model and its writers.
//
// # Use
//
//	e, err := policy.Load(ctx, policy.WithUserPolicies(dirs...), policy.WithDataDirs(data...))
//	run, err := e.Start(ctx)
//	run.Add(run.Evaluate(site, bundle)) // per site, on a pool of goroutines
//	run.AddProblems(problems)
//	rep, err := run.Finish()
//	rep, err := e.Check(ctx, fleet, bundles) // a fleet in memory: the same
//
// Load compiles everything once; a broken user policy or data file is a
// *PolicyError with its file and line. A Run evaluates each site as it
// comes, on all CPUs, each with a time limit, the rules that read only the
// site at once and those that read the fleet index (data.siteops.fleet)
// in Finish, keeping of each site only what those read: a caller can
// stream a fleet of any size (sites.Stream). Load problems of the fleet
// and sites whose evaluation times out are findings, so one broken site
// never hides the others.
//
// # Change rules
//
// With WithChange, Check also compares the fleet with the revision before
// it: a site whose installation has started (Change.Started, from the
// status documents) may not change the fields the installer treats as
// immutable (change.immutable-field, one table in change.go), and one
// change may delete at most DeletionBudget sites unless it is marked as
// intending them (change.deletion-budget). report.Report.Since then keeps
// the findings new since that revision (pull-request mode).
//
// # What a rule sees
//
// input is one document per site, the same for both formats:
//
//	site:        # the normalized site: cluster values, nodes, the
//	             # document path each value comes from (fields, node.path),
//	             # and the discovery Ignition size of each InfraEnv (discovery)
//	objects:     # the rendered objects (only when a policy reads them)
//	positions:   # document path -> file, line, column (idem)
//
// and data.siteops.fleet indexes every MAC, host name, BMC, VIP and
// cluster name of the fleet with where it is used, so that a rule about
// the whole fleet looks its own values up: O(sites), not O(sites²).
// docs/policy.md describes both in full, with the rule conventions.
//
// # Rules
//
// A built-in rule is one file: a package under siteops.rules with a
// METADATA block (title, description, and custom id, severity,
// remediation, reference) and a deny or warn set of {"msg", "field"}
// objects; the engine turns the field into a position. Its fixtures are
// rules/testdata/<id>/{bad,good}.yaml. docs/rules.md is generated from the
// metadata (go test ./policy -run TestRulesDoc -update).
//
// # Evaluator
//
// The built-in rules that read only their site are planned by OPA's
// planner and run by internal/irvm, an interpreter of OPA's plan with
// OPA's built-ins, about three times faster than OPA's topdown; should
// the planner or irvm refuse the query, topdown runs it. User rules and
// the fleet rules are evaluated by topdown. Both evaluators give the same
// findings (TestEvaluatorsAgree).
//
// # Sandbox
//
// Policies may not reach the network or the environment: the OPA
// capabilities leave out http.send, net.lookup_ip_addr, opa.runtime,
// providers.aws.sign_req and trace, and allow no host. siteops adds one
// built-in, siteops.ignition_errors, which validates an Ignition config
// with Ignition's own code.
package policy
