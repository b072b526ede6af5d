package assisted

import "strings"

// ValidationStatus is the result of one validation (internal/host/validator.go).
type ValidationStatus string

const (
	ValidationSuccess  ValidationStatus = "success"
	ValidationFailure  ValidationStatus = "failure"
	ValidationPending  ValidationStatus = "pending"
	ValidationError    ValidationStatus = "error"
	ValidationDisabled ValidationStatus = "disabled"
)

// Category groups validations in validationsInfo.
type Category string

const (
	CategoryHardware      Category = "hardware"
	CategoryNetwork       Category = "network"
	CategoryOperators     Category = "operators"
	CategoryHostsData     Category = "hosts-data"
	CategoryConfiguration Category = "configuration"
)

// Result is one evaluated validation. Suppressed results count as passed
// but are left out of validationsInfo.
type Result struct {
	ID         string           `json:"id"`
	Status     ValidationStatus `json:"status"`
	Message    string           `json:"message"`
	Suppressed bool             `json:"-"`
	// Ignored is set when the cluster's annotation asks to skip the
	// validation: it keeps its status and message in the output and only
	// counts as passed (internal/host/refresh_status_preprocessor.go and
	// internal/cluster/refresh_status_preprocessor.go preprocess).
	Ignored bool `json:"-"`
}

// Passed reports whether the result counts as passed for the state
// machines: success (suppressed or not) and ignored results do; pending
// blocks as failure does.
func (r Result) Passed() bool { return r.Status == ValidationSuccess || r.Ignored }

func ok(msg string) (ValidationStatus, string)      { return ValidationSuccess, msg }
func fail(msg string) (ValidationStatus, string)    { return ValidationFailure, msg }
func pending(msg string) (ValidationStatus, string) { return ValidationPending, msg }

// suppressed is the status a validation returns when it does not apply;
// the evaluator turns it into a suppressed success.
const suppressed ValidationStatus = "success-suppress-output"

func skip() (ValidationStatus, string) { return suppressed, "" }

// Ignored is the set of validation ids a cluster's annotation asks to
// skip (agent-install.openshift.io/ignored-host-validations and
// ignored-cluster-validations: a comma list, or "all").
type Ignored struct {
	All bool
	IDs map[string]bool
}

// ParseIgnored reads an ignored-validations annotation value.
func ParseIgnored(value string) Ignored {
	var ig Ignored
	for _, f := range strings.Split(value, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "":
		case f == "all":
			ig.All = true
		default:
			if ig.IDs == nil {
				ig.IDs = map[string]bool{}
			}
			ig.IDs[f] = true
		}
	}
	return ig
}

func (ig Ignored) has(id string) bool { return ig.All || ig.IDs[id] }

// FailingMessages returns the messages of the failure results the output
// shows.
func FailingMessages(rs []Result) []string {
	var out []string
	for _, r := range rs {
		if r.Status == ValidationFailure && !r.Suppressed {
			out = append(out, r.Message)
		}
	}
	return out
}

// NotPassing returns the results that are neither success nor disabled,
// in evaluation order: what conditions and site statuses show.
func NotPassing(rs []Result) []Result {
	var out []Result
	for _, r := range rs {
		if r.Status != ValidationSuccess && r.Status != ValidationDisabled && !r.Suppressed {
			out = append(out, r)
		}
	}
	return out
}
