package assisted

// OLMOperators are the operators with a "<name>-requirements-satisfied"
// host and cluster validation (§3.2 operator validations,
// internal/operators/manager.go). Sites rendered by siteops enable none of
// them, so each reports success with "<name> is disabled".
var OLMOperators = []string{
	"lso", "odf", "cnv", "lvm", "mce", "mtv", "osc", "node-feature-discovery",
	"nvidia-gpu", "pipelines", "servicemesh", "serverless", "openshift-ai",
	"authorino", "nmstate", "amd-gpu", "kmm", "node-healthcheck",
	"self-node-remediation", "fence-agents-remediation", "node-maintenance",
	"kube-descheduler", "cluster-observability", "numa-resources", "oadp",
	"metallb", "loki", "openshift-logging",
}

// OperatorValidationID is the validation id of an operator.
func OperatorValidationID(op string) string { return op + "-requirements-satisfied" }

// OperatorResults returns the operator validations of a host or cluster
// with no operator enabled. In a day-2 cluster the message says the
// validation is disabled when adding hosts. The slice is shared: callers
// must not modify it.
func OperatorResults(day2 bool) []Result {
	if day2 {
		return operatorResultsDay2
	}
	return operatorResultsDay1
}

var operatorResultsDay1, operatorResultsDay2 = operatorResults(false), operatorResults(true)

func operatorResults(day2 bool) []Result {
	out := make([]Result, len(OLMOperators))
	for i, op := range OLMOperators {
		msg := op + " is disabled"
		if day2 {
			msg = op + " validation is disabled when adding hosts to an existing cluster."
		}
		out[i] = Result{ID: OperatorValidationID(op), Status: ValidationSuccess, Message: msg}
	}
	return out
}
