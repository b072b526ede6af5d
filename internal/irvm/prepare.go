package irvm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/ir"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// Target is the name of this evaluator as a rego target (rego.Target).
const Target = "siteops-ir"

// ErrUnsupported is wrapped by the error of a plan this evaluator does not
// run; topdown does.
var ErrUnsupported = errors.New("the plan uses what the IR evaluator does not run")

func init() { rego.RegisterPlugin(Target, plugin{}) }

type dataKey struct{}

// WithData returns ctx carrying data, the document a plan prepared with
// ctx reads as data (the rules are the plan's own). Without it, data is
// an empty object.
func WithData(ctx context.Context, data ast.Object) context.Context {
	return context.WithValue(ctx, dataKey{}, data)
}

type plugin struct{}

func (plugin) IsTarget(t string) bool { return t == Target }

func (plugin) PrepareForEval(ctx context.Context, pol *ir.Policy, opts ...rego.PrepareOption) (rego.TargetPluginEval, error) {
	var pc rego.PrepareConfig
	for _, o := range opts {
		o(&pc)
	}
	data, _ := ctx.Value(dataKey{}).(ast.Object)
	if data == nil {
		data = ast.NewObject()
	}
	return compile(pol, data, pc.BuiltinFuncs())
}

// program is a prepared plan: its functions with their callees resolved
// and the constants it reads made once.
type program struct {
	plan    *fn
	funcs   []*fn
	calls   map[*ir.CallStmt]*call
	strings []*ast.Term
	numbers map[*ir.MakeNumberRefStmt]*ast.Term
	files   []string
	data    *ast.Term
	memo    memo
	// dataRefs are the lookups of a reference into data (data.a[2]): a
	// number key there is read as its text, as topdown reads data by
	// path. A lookup in a value of data taken into a variable first is
	// not one of them (topdown gives undefined for obj[2] there).
	dataRefs map[*ir.DotStmt]bool
}

// fn is a function of the plan (a rule, or the query itself) and the
// number of locals a call of it needs.
type fn struct {
	name   string
	params []ir.Local
	blocks []*ir.Block
	locals int
	index  int
	// once holds for a function of input and data alone: a rule without
	// arguments, whose value is the same for the whole evaluation.
	once bool
	// pure holds for a function whose value depends on its arguments
	// alone (memo.go); readsEnv and callees are what decides it.
	pure     bool
	readsEnv bool
	callees  []*fn
	stats    memoStats
}

// call is the callee of a call statement: a function of the plan or a
// built-in.
type call struct {
	fn  *fn
	bi  *builtin
	loc *ast.Location
}

type builtin struct {
	name     string
	f        topdown.BuiltinFunc
	relation bool // it gives every output (walk), as an array
	void     bool // it gives none (print)
	// keepsArgs holds for a non-deterministic built-in, whose arguments
	// may be kept by the non-deterministic built-in cache.
	keepsArgs bool
}

func compile(pol *ir.Policy, data ast.Object, funcs map[string]*topdown.Builtin) (*program, error) {
	if len(pol.UnplannedRules) > 0 {
		return nil, fmt.Errorf("%w: rule %s was not planned", ErrUnsupported, pol.UnplannedRules[0].Path)
	}
	if pol.Plans == nil || len(pol.Plans.Plans) != 1 {
		return nil, fmt.Errorf("%w: the policy has no single plan", ErrUnsupported)
	}
	p := &program{
		calls:    map[*ir.CallStmt]*call{},
		dataRefs: map[*ir.DotStmt]bool{},
		numbers:  map[*ir.MakeNumberRefStmt]*ast.Term{},
		data:     ast.NewTerm(data),
	}
	if pol.Static != nil {
		for _, s := range pol.Static.Strings {
			p.strings = append(p.strings, ast.StringTerm(s.Value))
		}
		for _, f := range pol.Static.Files {
			p.files = append(p.files, f.Value)
		}
	}
	byName := map[string]*fn{}
	if pol.Funcs != nil {
		for i, f := range pol.Funcs.Funcs {
			g := &fn{name: f.Name, params: f.Params, blocks: f.Blocks, index: i, once: len(f.Params) == 2}
			p.funcs = append(p.funcs, g)
			byName[f.Name] = g
		}
	}
	plan := pol.Plans.Plans[0]
	p.plan = &fn{name: plan.Name, blocks: plan.Blocks, index: -1}
	builtins := map[string]*builtin{}
	for _, g := range append([]*fn{p.plan}, p.funcs...) {
		v := &resolver{p: p, fn: g, byName: byName, builtins: builtins, funcs: funcs,
			owned: map[ir.Local]bool{}, dataRef: map[ir.Local]bool{}}
		for _, b := range g.blocks {
			if err := ir.Walk(v, b); err != nil {
				return nil, err
			}
			if v.err != nil {
				return nil, v.err
			}
		}
		for _, l := range g.params {
			v.local(l)
		}
		g.locals = int(v.max) + 1
	}
	markPure(p.funcs)
	return p, nil
}

// resolver visits the statements of one function: it resolves callees and
// constants, refuses what the evaluator does not run, and counts locals.
type resolver struct {
	p        *program
	fn       *fn
	byName   map[string]*fn
	builtins map[string]*builtin
	funcs    map[string]*topdown.Builtin
	max      ir.Local
	// A statement may change in place only a value its function made
	// (MakeArray, MakeObject, MakeSet): a value of the input, of data or
	// of another evaluation (memo.go) must not change, and the plans OPA
	// makes for usual policies change only values they made. owned says
	// which locals hold such a value at this point of the function (its
	// statements in order, OPA reuses locals between blocks); scans are
	// the scans around it, each with the locals its body changes and
	// those it gives another value: a body runs again with what it left.
	owned  map[ir.Local]bool
	scans  []*scanLocals
	blocks []*blockLocals
	// nextMayStop marks the next block entered as one that may stop
	// before its end whatever it holds (a scan's body, a not's block).
	nextMayStop bool
	err         error
	// dataRef says which locals hold, at this point, the value of a
	// reference into data being looked up (program.dataRefs).
	dataRef map[ir.Local]bool
}

type scanLocals struct{ changed, assigned map[ir.Local]bool }

// blockLocals is what ownership knows of the block being walked: owned as
// it entered, the locals given another value in it (nested blocks
// included), and whether it may stop before its end, when a make in it
// may not have run.
type blockLocals struct {
	before   map[ir.Local]bool
	assigned map[ir.Local]bool
	mayStop  bool
}

func (v *resolver) Before(x any) {
	switch x.(type) {
	case *ir.ScanStmt:
		v.scans = append(v.scans, &scanLocals{changed: map[ir.Local]bool{}, assigned: map[ir.Local]bool{}})
		v.nextMayStop = true // the body may run no time
	case *ir.NotStmt:
		v.nextMayStop = true // the not holds when its block stopped
	case *ir.Block:
		v.blocks = append(v.blocks, &blockLocals{before: maps.Clone(v.owned), assigned: map[ir.Local]bool{}, mayStop: v.nextMayStop})
		v.nextMayStop = false
	}
}

func (v *resolver) After(x any) {
	if _, ok := x.(*ir.Block); ok {
		b := v.blocks[len(v.blocks)-1]
		v.blocks = v.blocks[:len(v.blocks)-1]
		// After a block that may have stopped early, a local is owned
		// only if it was before and nothing in the block gave it another
		// value: a make in the block may not have run.
		if b.mayStop {
			for l, owned := range v.owned {
				if owned && (!b.before[l] || b.assigned[l]) {
					v.owned[l] = false
				}
			}
		}
		if len(v.blocks) > 0 {
			maps.Copy(v.blocks[len(v.blocks)-1].assigned, b.assigned)
		}
		return
	}
	if _, ok := x.(*ir.ScanStmt); !ok {
		return
	}
	sc := v.scans[len(v.scans)-1]
	v.scans = v.scans[:len(v.scans)-1]
	for l := range sc.changed {
		if sc.assigned[l] && v.err == nil {
			v.err = fmt.Errorf("%w: %s changes in place, in a loop, a value it did not make", ErrUnsupported, v.fn.name)
		}
	}
	if len(v.scans) > 0 {
		outer := v.scans[len(v.scans)-1]
		maps.Copy(outer.changed, sc.changed)
		maps.Copy(outer.assigned, sc.assigned)
	}
}

func (v *resolver) Visit(x any) (ir.Visitor, error) {
	switch s := x.(type) {
	case *ir.WithStmt:
		return nil, fmt.Errorf("%w: the with keyword", ErrUnsupported)
	case *ir.CallDynamicStmt:
		return nil, fmt.Errorf("%w: a dynamic reference into data", ErrUnsupported)
	case *ir.CallStmt:
		c, err := v.callee(s)
		if err != nil {
			return nil, err
		}
		v.p.calls[s] = c
		// A function of the plan is given input and data first; any other
		// use of them is a read.
		env := s.Args
		if c.fn != nil {
			env = s.Args[2:]
			v.fn.callees = append(v.fn.callees, c.fn)
		} else if c.bi.keepsArgs || c.bi.void {
			v.fn.readsEnv = true
		}
		for _, a := range env {
			v.env(a)
		}
		v.assign(s.Result)
		v.locals(reflect.ValueOf(s).Elem())
		return v, nil
	case *ir.MakeNumberRefStmt:
		if s.Index < 0 || s.Index >= len(v.p.strings) {
			return nil, fmt.Errorf("irvm: number constant %d out of range", s.Index)
		}
		v.p.numbers[s] = ast.NumberTerm(json.Number(v.p.strings[s.Index].Value.(ast.String)))
	}
	if err := v.ownership(x); err != nil {
		return nil, err
	}
	if s, ok := x.(ir.Stmt); ok {
		v.locals(reflect.ValueOf(s).Elem())
	}
	return v, nil
}

// ownership follows which locals hold a value the function made, and
// refuses a statement that changes another in place.
func (v *resolver) ownership(x any) error {
	if v.err != nil {
		return v.err
	}
	if s, ok := x.(ir.Stmt); ok && len(v.blocks) > 0 && mayStop(s) {
		v.blocks[len(v.blocks)-1].mayStop = true
	}
	switch s := x.(type) {
	case *ir.MakeArrayStmt:
		v.owned[s.Target] = true
	case *ir.MakeObjectStmt:
		v.owned[s.Target] = true
	case *ir.MakeSetStmt:
		v.owned[s.Target] = true
	case *ir.SetAddStmt:
		return v.change(s.Set)
	case *ir.ObjectInsertStmt:
		return v.change(s.Object)
	case *ir.ObjectInsertOnceStmt:
		return v.change(s.Object)
	case *ir.ArrayAppendStmt:
		return v.change(s.Array)
	case *ir.DotStmt:
		src, ok := s.Source.Value.(ir.Local)
		ref := ok && (src == ir.Data || v.dataRef[src])
		v.assign(s.Target)
		if ref {
			v.p.dataRefs[s], v.dataRef[s.Target] = true, true
		}
	case *ir.AssignVarStmt:
		v.assign(s.Target)
	case *ir.AssignVarOnceStmt:
		v.assign(s.Target)
	case *ir.ScanStmt:
		v.assign(s.Key)
		v.assign(s.Value)
	case *ir.ObjectMergeStmt:
		v.assign(s.Target)
	case *ir.ResetLocalStmt:
		v.assign(s.Target)
	}
	return nil
}

func (v *resolver) change(l ir.Local) error {
	if !v.owned[l] {
		return fmt.Errorf("%w: %s changes in place a value it did not make", ErrUnsupported, v.fn.name)
	}
	for _, sc := range v.scans {
		sc.changed[l] = true
	}
	return nil
}

func (v *resolver) assign(l ir.Local) {
	v.owned[l], v.dataRef[l] = false, false
	for _, sc := range v.scans {
		sc.assigned[l] = true
	}
	if len(v.blocks) > 0 {
		v.blocks[len(v.blocks)-1].assigned[l] = true
	}
}

// mayStop reports whether a statement may end its block: it may be
// undefined, or break, or hold blocks that may.
func mayStop(s ir.Stmt) bool {
	switch s.(type) {
	case *ir.MakeArrayStmt, *ir.MakeObjectStmt, *ir.MakeSetStmt, *ir.MakeNullStmt, *ir.MakeNumberIntStmt,
		*ir.MakeNumberRefStmt, *ir.AssignVarStmt, *ir.AssignVarOnceStmt, *ir.AssignIntStmt, *ir.ResetLocalStmt,
		*ir.ArrayAppendStmt, *ir.SetAddStmt, *ir.ObjectInsertStmt, *ir.ObjectInsertOnceStmt, *ir.ReturnLocalStmt,
		*ir.ResultSetAddStmt, *ir.NopStmt:
		return false
	}
	return true
}

// locals counts the locals a statement names, in any of its fields.
func (v *resolver) locals(s reflect.Value) {
	for i := range s.NumField() {
		switch f := s.Field(i).Interface().(type) {
		case ir.Local:
			v.local(f)
			v.env(ir.Operand{Value: f})
		case ir.Operand:
			v.operand(f)
			v.env(f)
		case []ir.Operand:
			for _, o := range f {
				v.operand(o)
			}
		case []ir.Local:
			for _, l := range f {
				v.local(l)
			}
		}
	}
}

func (v *resolver) operand(o ir.Operand) {
	if l, ok := o.Value.(ir.Local); ok {
		v.local(l)
	}
}

func (v *resolver) local(l ir.Local) {
	if l > v.max {
		v.max = l
	}
}

// env notes a read of input or data (but as a function's first two
// arguments, see Visit).
func (v *resolver) env(o ir.Operand) {
	if l, ok := o.Value.(ir.Local); ok && (l == ir.Input || l == ir.Data) {
		v.fn.readsEnv = true
	}
}

func (v *resolver) callee(s *ir.CallStmt) (*call, error) {
	loc := v.p.location(s.Location)
	if f, ok := v.byName[s.Func]; ok {
		if len(s.Args) != len(f.params) {
			return nil, fmt.Errorf("irvm: %s called with %d arguments, wants %d", s.Func, len(s.Args), len(f.params))
		}
		return &call{fn: f, loc: loc}, nil
	}
	if b, ok := v.builtins[s.Func]; ok {
		return &call{bi: b, loc: loc}, nil
	}
	var decl *ast.Builtin
	var impl topdown.BuiltinFunc
	if f, ok := v.funcs[s.Func]; ok {
		decl, impl = f.Decl, f.Func
	} else if d, ok := ast.BuiltinMap[s.Func]; ok {
		decl, impl = d, topdown.GetBuiltin(s.Func)
	}
	if decl == nil || impl == nil {
		return nil, fmt.Errorf("%w: the built-in %s", ErrUnsupported, s.Func)
	}
	b := &builtin{name: s.Func, f: impl, relation: decl.Relation, void: decl.Decl.Result() == nil, keepsArgs: decl.Nondeterministic}
	v.builtins[s.Func] = b
	return &call{bi: b, loc: loc}, nil
}

// location is where a statement comes from in the policy, for errors.
func (p *program) location(l ir.Location) *ast.Location {
	loc := &ast.Location{Row: l.Row, Col: l.Col}
	if l.File >= 0 && l.File < len(p.files) {
		loc.File = p.files[l.File]
	}
	return loc
}
