package policy

import (
	"sync"

	ignition "github.com/coreos/ignition/v2/config"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/types"
)

// siteops.ignition_errors(text) -> [string] parses an Ignition config of
// any version Ignition v2 knows (3.0 to 3.5, translated to the latest) and
// validates it, returning every error as "error at $.path, line L col C:
// message"; an empty array means the config is valid. Warnings are left
// out: Ignition itself runs configs that only have warnings. Which versions
// a consumer accepts (assisted-service takes 3.1 and 3.2) is for the rule
// to say, not this function.
var ignitionErrorsBuiltin = &ast.Builtin{
	Name:        "siteops.ignition_errors",
	Description: "Parses and validates an Ignition config; returns its errors (empty when valid).",
	Decl: types.NewFunction(
		types.Args(types.Named("config", types.S).Description("Ignition config JSON")),
		types.Named("errors", types.NewArray(nil, types.S)).Description("the problems found"),
	),
}

// ignitionCache remembers results by config text: fleets share overrides
// (one template written into every site), and parsing and validating is
// the costliest thing a rule does. It is bounded and shared by every
// evaluation of one engine.
type ignitionCache struct {
	mu sync.Mutex
	m  map[string]*ast.Term
}

const ignitionCacheSize = 1024

func (c *ignitionCache) errors(text string) *ast.Term {
	c.mu.Lock()
	t, ok := c.m[text]
	c.mu.Unlock()
	if ok {
		return t
	}
	t = ast.ArrayTerm(ignitionErrors(text)...)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= ignitionCacheSize {
		c.m = make(map[string]*ast.Term, ignitionCacheSize)
	}
	c.m[text] = t
	c.mu.Unlock()
	return t
}

// ignitionErrors returns the problems of an Ignition config as terms.
func ignitionErrors(text string) []*ast.Term {
	_, rpt, err := ignition.Parse([]byte(text))
	var out []*ast.Term
	for _, e := range rpt.Entries {
		if e.Kind.IsFatal() {
			out = append(out, ast.StringTerm(e.String()))
		}
	}
	if err != nil && len(out) == 0 {
		out = append(out, ast.StringTerm(err.Error()))
	}
	return out
}

// ignitionFunction is the implementation registered with each prepared query.
func (c *ignitionCache) function() func(*rego.Rego) {
	return rego.Function1(&rego.Function{
		Name: ignitionErrorsBuiltin.Name,
		Decl: ignitionErrorsBuiltin.Decl,
	}, func(_ rego.BuiltinContext, text *ast.Term) (*ast.Term, error) {
		s, ok := text.Value.(ast.String)
		if !ok {
			return nil, nil // undefined, like a built-in given the wrong type
		}
		return c.errors(string(s)), nil
	})
}
