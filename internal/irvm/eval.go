package irvm

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/ir"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/builtins"
)

// cancelEvery is how many statements run between two looks at the
// evaluation's cancellation.
const cancelEvery = 256

// state is one evaluation.
type state struct {
	p      *program
	cancel topdown.Cancel
	ctx    context.Context
	bctx   topdown.BuiltinContext
	// once holds the value of each function of input and data alone,
	// once called (nil: undefined); done says which were.
	once    []*ast.Term
	done    []bool
	input   *ast.Term
	results ast.Set
	steps   int
	// stack holds the locals of the calls in progress and the arguments
	// of built-ins.
	stack []*ast.Term
	// out and all are the output of the built-in being called, collect
	// the callback that takes it (made once per state, not per call).
	out      *ast.Term
	all      []*ast.Term
	relation bool
	collect  func(*ast.Term) error
	// strict: a built-in's error stops the evaluation
	// (rego.StrictBuiltinErrors), as it does in topdown.
	strict bool
}

var states = sync.Pool{New: func() any {
	st := &state{}
	st.collect = func(t *ast.Term) error {
		switch {
		case st.relation:
			st.all = append(st.all, t)
		case st.out == nil:
			st.out = t
		}
		return nil
	}
	return st
}}

// release clears st and returns it to the pool.
func (st *state) release() {
	clear(st.once)
	clear(st.done)
	clear(st.stack[:cap(st.stack)])
	*st = state{once: st.once[:0], done: st.done[:0], stack: st.stack[:0], collect: st.collect}
	states.Put(st)
}

// frame returns n cleared locals on the stack; pop gives them back.
func (st *state) frame(n int) []*ast.Term {
	base := len(st.stack)
	st.stack = slices.Grow(st.stack, n)[:base+n]
	locals := st.stack[base : base+n : base+n]
	clear(locals) // a grown stack holds copies of popped frames
	return locals
}

func (st *state) pop(locals []*ast.Term) {
	st.stack = st.stack[:len(st.stack)-len(locals)]
}

// frame is the locals of one function call.
type frame struct {
	locals []*ast.Term
	ret    ir.Local
	hasRet bool
}

// Eval evaluates the plan on one input document: the set of the query's
// results, each an object of its bindings.
func (p *program) Eval(ctx context.Context, ectx *rego.EvalContext, runtime ast.Value) (ast.Value, error) {
	st := states.Get().(*state)
	defer st.release()
	st.p, st.ctx, st.cancel, st.results = p, ctx, ectx.ExternalCancel(), ast.NewSet()
	st.strict = ectx.StrictBuiltinErrors()
	st.once = slices.Grow(st.once, len(p.funcs))[:len(p.funcs)]
	st.done = slices.Grow(st.done, len(p.funcs))[:len(p.funcs)]
	if in := ectx.ParsedInput(); in != nil {
		st.input = ast.NewTerm(in)
	} else if raw := ectx.RawInput(); raw != nil {
		v, err := ast.InterfaceToValue(*raw)
		if err != nil {
			return nil, err
		}
		st.input = ast.NewTerm(v)
	}
	// Without rego.EvalTime, EvalSeed or EvalExternalCancel, topdown
	// takes the clock, crypto/rand and a cancel of the context's own.
	now := ectx.Time()
	if now.IsZero() {
		now = time.Now()
	}
	seed := ectx.Seed()
	if seed == nil {
		seed = rand.Reader
	}
	if st.cancel == nil {
		st.cancel = topdown.NewCancel()
		defer context.AfterFunc(ctx, st.cancel.Cancel)()
	}
	st.bctx = topdown.BuiltinContext{
		Context:                     ctx,
		Metrics:                     ectx.Metrics(),
		Seed:                        seed,
		Time:                        ast.NumberTerm(json.Number(strconv.FormatInt(now.UnixNano(), 10))),
		Cancel:                      st.cancel,
		Cache:                       builtins.Cache{},
		InterQueryBuiltinCache:      ectx.InterQueryBuiltinCache(),
		InterQueryBuiltinValueCache: ectx.InterQueryBuiltinValueCache(),
		NDBuiltinCache:              ectx.NDBCache(),
		PrintHook:                   ectx.PrintHook(),
		Capabilities:                ectx.Capabilities(),
	}
	if runtime != nil {
		st.bctx.Runtime = ast.NewTerm(runtime)
	}
	fr := frame{locals: st.frame(max(p.plan.locals, 2))}
	defer st.pop(fr.locals)
	fr.locals[ir.Input], fr.locals[ir.Data] = st.input, p.data
	for _, b := range p.plan.blocks {
		if _, _, err := st.block(&fr, b); err != nil {
			return nil, err
		}
	}
	if err := st.cancelled(); err != nil {
		return nil, err
	}
	return st.results, nil
}

// block runs the statements of b. A statement that is undefined ends the
// block, and execution goes on after it; a break of index n > 0 ends it
// and n-1 of the blocks around it (stop with index n-1).
func (st *state) block(fr *frame, b *ir.Block) (stop bool, index uint32, err error) {
	stop, index, err = st.stmts(fr, b.Stmts)
	if err != nil || !stop {
		return false, 0, err
	}
	if index == 0 {
		return false, 0, nil
	}
	return true, index - 1, nil
}

// stmts runs statements until one stops: undefined (stop, 0) or a break.
func (st *state) stmts(fr *frame, stmts []ir.Stmt) (bool, uint32, error) {
	for _, s := range stmts {
		if st.steps++; st.steps%cancelEvery == 0 {
			if err := st.cancelled(); err != nil {
				return false, 0, err
			}
		}
		stop, index, err := st.stmt(fr, s)
		if err != nil || stop {
			return stop, index, err
		}
	}
	return false, 0, nil
}

func (st *state) cancelled() error {
	if (st.cancel != nil && st.cancel.Cancelled()) || st.ctx.Err() != nil {
		return &topdown.Error{Code: topdown.CancelErr, Message: "caller cancelled query execution"}
	}
	return nil
}

// undefined is what a statement returns when it does not hold.
const undefined = true

func (st *state) stmt(fr *frame, s ir.Stmt) (bool, uint32, error) {
	l := fr.locals
	switch s := s.(type) {
	case *ir.DotStmt:
		src, key := st.operand(fr, s.Source), st.operand(fr, s.Key)
		v := get(src, key)
		if v == nil && key != nil && st.p.dataRefs[s] {
			n, _ := key.Value.(ast.Number)
			if n != "" {
				v = get(src, ast.StringTerm(string(n)))
			}
		}
		if v == nil {
			return undefined, 0, nil
		}
		l[s.Target] = v
	case *ir.EqualStmt:
		if !equal(st.operand(fr, s.A), st.operand(fr, s.B)) {
			return undefined, 0, nil
		}
	case *ir.NotEqualStmt:
		a, b := st.operand(fr, s.A), st.operand(fr, s.B)
		if a == nil || b == nil || equal(a, b) {
			return undefined, 0, nil
		}
	case *ir.CallStmt:
		return st.call(fr, s)
	case *ir.AssignVarStmt:
		l[s.Target] = st.operand(fr, s.Source)
	case *ir.AssignVarOnceStmt:
		v := st.operand(fr, s.Source)
		if old := l[s.Target]; old != nil {
			if !equal(old, v) {
				return false, 0, st.conflict(s.Location, "complete rules must not produce multiple outputs")
			}
			return false, 0, nil
		}
		l[s.Target] = v
	case *ir.ScanStmt:
		return st.scan(fr, s)
	case *ir.BlockStmt:
		for _, b := range s.Blocks {
			stop, index, err := st.block(fr, b)
			if err != nil || stop {
				return stop, index, err
			}
		}
	case *ir.NotStmt:
		stop, index, err := st.stmts(fr, s.Block.Stmts)
		switch {
		case err != nil:
			return false, 0, err
		case !stop:
			return undefined, 0, nil // the negated block holds
		case index == 0:
			return false, 0, nil
		default:
			return true, index - 1, nil
		}
	case *ir.BreakStmt:
		return true, s.Index, nil
	case *ir.ReturnLocalStmt:
		fr.ret, fr.hasRet = s.Source, true
	case *ir.IsDefinedStmt:
		if l[s.Source] == nil {
			return undefined, 0, nil
		}
	case *ir.IsUndefinedStmt:
		if l[s.Source] != nil {
			return undefined, 0, nil
		}
	case *ir.ResetLocalStmt:
		l[s.Target] = nil
	case *ir.LenStmt:
		n, ok := length(st.operand(fr, s.Source))
		if !ok {
			return undefined, 0, nil
		}
		l[s.Target] = ast.InternedTerm(n)
	case *ir.MakeNullStmt:
		l[s.Target] = ast.NullTerm()
	case *ir.MakeNumberIntStmt:
		l[s.Target] = ast.InternedTerm(int(s.Value))
	case *ir.AssignIntStmt:
		l[s.Target] = ast.InternedTerm(int(s.Value))
	case *ir.MakeNumberRefStmt:
		l[s.Target] = st.p.numbers[s]
	case *ir.MakeArrayStmt:
		l[s.Target] = ast.NewTerm(ast.NewArrayWithCapacity(int(s.Capacity)))
	case *ir.MakeObjectStmt:
		l[s.Target] = ast.NewTerm(ast.NewObject())
	case *ir.MakeSetStmt:
		l[s.Target] = ast.NewTerm(ast.NewSet())
	case *ir.IsArrayStmt:
		if v := st.operand(fr, s.Source); v == nil || !isArray(v) {
			return undefined, 0, nil
		}
	case *ir.IsObjectStmt:
		if v := st.operand(fr, s.Source); v == nil || !isObject(v) {
			return undefined, 0, nil
		}
	case *ir.IsSetStmt:
		if v := st.operand(fr, s.Source); v == nil || !isSet(v) {
			return undefined, 0, nil
		}
	case *ir.ArrayAppendStmt:
		arr, err := made[*ast.Array](st, l[s.Array], s.Location)
		if err != nil {
			return false, 0, err
		}
		l[s.Array] = ast.NewTerm(arr.Append(st.operand(fr, s.Value)))
	case *ir.SetAddStmt:
		set, err := made[ast.Set](st, l[s.Set], s.Location)
		if err != nil {
			return false, 0, err
		}
		set.Add(st.operand(fr, s.Value))
	case *ir.ObjectInsertStmt:
		obj, err := made[ast.Object](st, l[s.Object], s.Location)
		if err != nil {
			return false, 0, err
		}
		obj.Insert(st.operand(fr, s.Key), st.operand(fr, s.Value))
	case *ir.ObjectInsertOnceStmt:
		obj, err := made[ast.Object](st, l[s.Object], s.Location)
		if err != nil {
			return false, 0, err
		}
		k, v := st.operand(fr, s.Key), st.operand(fr, s.Value)
		if old := obj.Get(k); old != nil {
			if !equal(old, v) {
				return false, 0, st.conflict(s.Location, "object keys must be unique")
			}
			return false, 0, nil
		}
		obj.Insert(k, v)
	case *ir.ObjectMergeStmt:
		a, b := l[s.A], l[s.B]
		switch {
		case a == nil:
			l[s.Target] = b
		case b == nil:
			l[s.Target] = a
		default:
			ao, aok := a.Value.(ast.Object)
			bo, bok := b.Value.(ast.Object)
			if !aok || !bok {
				l[s.Target] = a
				break
			}
			merged, ok := ao.Merge(bo)
			if !ok {
				return false, 0, st.conflict(s.Location, "object keys must be unique")
			}
			l[s.Target] = ast.NewTerm(merged)
		}
	case *ir.ResultSetAddStmt:
		st.results.Add(l[s.Value])
	case *ir.NopStmt:
	default:
		return false, 0, fmt.Errorf("%w: statement %T", ErrUnsupported, s)
	}
	return false, 0, nil
}

func (st *state) conflict(l ir.Location, msg string) error {
	return &topdown.Error{Code: topdown.ConflictErr, Location: st.p.location(l), Message: msg}
}

// made is the collection a statement changes in place, which the plan
// made (prepare's ownership check): another value is the plan's error,
// reported at the policy's line.
func made[T ast.Value](st *state, t *ast.Term, l ir.Location) (T, error) {
	if t != nil {
		if v, ok := t.Value.(T); ok {
			return v, nil
		}
	}
	var want T
	return want, &topdown.Error{Code: topdown.InternalErr, Location: st.p.location(l),
		Message: fmt.Sprintf("the plan changes in place %v where it made a %T", t, want)}
}

// operand is the value of an operand: a local (nil when undefined), a
// string constant or a boolean.
func (st *state) operand(fr *frame, o ir.Operand) *ast.Term {
	switch v := o.Value.(type) {
	case ir.Local:
		return fr.locals[v]
	case ir.StringIndex:
		return st.p.strings[v]
	case ir.Bool:
		return ast.InternedTerm(bool(v))
	}
	return nil
}

// scan runs s's block for each element of its source, with the key and
// the value in their locals. An undefined statement of the block goes on
// to the next element; a break of index 1 ends the scan, and one of index
// n > 1 also n-1 blocks around it.
func (st *state) scan(fr *frame, s *ir.ScanStmt) (bool, uint32, error) {
	var stop bool
	var index uint32
	var err error
	each := func(k, v *ast.Term) bool {
		fr.locals[s.Key], fr.locals[s.Value] = k, v
		stop, index, err = st.block(fr, s.Block)
		return stop || err != nil
	}
	src := fr.locals[s.Source]
	if src == nil {
		return false, 0, nil
	}
	switch c := src.Value.(type) {
	case *ast.Array:
		for i := range c.Len() {
			if each(ast.InternedTerm(i), c.Elem(i)) {
				break
			}
		}
	case ast.Object:
		c.Until(each)
	case ast.Set:
		c.Until(func(x *ast.Term) bool { return each(x, x) })
	}
	if err != nil {
		return false, 0, err
	}
	if stop && index > 0 {
		return true, index - 1, nil
	}
	return false, 0, nil
}

// call calls a function of the plan or a built-in, its result in the
// statement's local; undefined when it has none.
func (st *state) call(fr *frame, s *ir.CallStmt) (bool, uint32, error) {
	c := st.p.calls[s]
	if c.fn != nil {
		v, err := st.function(fr, c.fn, s.Args)
		if err != nil {
			return false, 0, err
		}
		if v == nil {
			return undefined, 0, nil
		}
		fr.locals[s.Result] = v
		return false, 0, nil
	}
	b := c.bi
	// A non-deterministic built-in's arguments may be kept (the
	// non-deterministic built-in cache); others are used during the call.
	var args []*ast.Term
	if b.keepsArgs {
		args = make([]*ast.Term, len(s.Args))
	} else {
		args = st.frame(len(s.Args))
		defer st.pop(args)
	}
	for i, a := range s.Args {
		if args[i] = st.operand(fr, a); args[i] == nil {
			return undefined, 0, nil
		}
	}
	bctx := st.bctx
	bctx.Location = c.loc
	st.out, st.all, st.relation = nil, st.all[:0], b.relation
	err := b.f(bctx, args, st.collect)
	out, all := st.out, st.all
	st.out = nil
	if err != nil {
		if h, ok := err.(topdown.Halt); ok {
			return false, 0, h.Err
		}
		if st.strict {
			return false, 0, err
		}
		return undefined, 0, nil // as topdown without strict built-in errors
	}
	switch {
	case b.relation:
		out = ast.ArrayTerm(slices.Clone(all)...)
	case b.void:
		return false, 0, nil
	case out == nil:
		return undefined, 0, nil
	}
	fr.locals[s.Result] = out
	return false, 0, nil
}

// function calls f with the operands as its parameters: its value, nil
// when undefined.
func (st *state) function(caller *frame, f *fn, args []ir.Operand) (*ast.Term, error) {
	if f.once && st.done[f.index] {
		return st.once[f.index], nil
	}
	fr := frame{locals: st.frame(f.locals)}
	defer st.pop(fr.locals)
	for i, p := range f.params {
		fr.locals[p] = st.operand(caller, args[i])
	}
	var key memoKey
	memoized := f.pure && f.stats.worth() && scalars(fr.locals, f.params[2:])
	if memoized {
		var v *ast.Term
		var ok bool
		key, v, ok = st.p.memo.get(f, fr.locals, f.params[2:])
		f.stats.count(ok)
		if ok {
			return v, nil
		}
	}
	for _, b := range f.blocks {
		if _, _, err := st.block(&fr, b); err != nil {
			return nil, err
		}
	}
	var v *ast.Term
	if fr.hasRet {
		v = fr.locals[fr.ret]
	}
	if f.once {
		st.once[f.index], st.done[f.index] = v, true
	}
	if memoized {
		st.p.memo.put(key, f, fr.locals, f.params[2:], v)
	}
	return v, nil
}
