package assisted

// OLMOperator is an operator with a "-requirements-satisfied" host and
// cluster validation: its name as the service's operator manager knows it,
// and the validation id, which differs from the name for numaresources
// (internal/operators/*/config.go and the validation ids in
// models/host_validation_id.go).
type OLMOperator struct {
	Name, ValidationID string
}

// OLMOperators are the operators the operator manager validates
// (internal/operators/manager.go ValidateHost, ValidateCluster). Sites
// rendered by siteops enable none of them, so each reports success with
// "<name> is disabled".
var OLMOperators = func() []OLMOperator {
	names := []string{
		"lso", "odf", "cnv", "lvm", "mce", "mtv", "osc", "node-feature-discovery",
		"nvidia-gpu", "pipelines", "servicemesh", "serverless", "openshift-ai",
		"authorino", "nmstate", "amd-gpu", "kmm", "node-healthcheck",
		"self-node-remediation", "fence-agents-remediation", "node-maintenance",
		"kube-descheduler", "cluster-observability", "numaresources", "oadp",
		"metallb", "loki", "openshift-logging",
	}
	out := make([]OLMOperator, len(names))
	for i, n := range names {
		out[i] = OLMOperator{Name: n, ValidationID: n + "-requirements-satisfied"}
		if n == "numaresources" {
			out[i].ValidationID = "numa-resources-requirements-satisfied"
		}
	}
	return out
}()

// OperatorResults returns the operator validations of a host or cluster
// with no operator enabled: "<name> is disabled", in a day-2 cluster too
// (the "validation is disabled when adding hosts to an existing cluster"
// text is only for operators the cluster has). The slice is shared:
// callers must not modify it.
func OperatorResults() []Result { return operatorResults }

var operatorResults = func() []Result {
	out := make([]Result, len(OLMOperators))
	for i, op := range OLMOperators {
		out[i] = Result{ID: op.ValidationID, Status: ValidationSuccess, Message: op.Name + " is disabled"}
	}
	return out
}()
