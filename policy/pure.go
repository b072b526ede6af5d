package policy

import (
	"sync"
	"sync/atomic"

	"github.com/open-policy-agent/opa/v1/ast"
)

// pureResults keeps, from one evaluation to the next, the results of the
// built-in library's functions that read neither the input nor any data
// but the library's own constants, and call no non-deterministic built-in:
// their result depends on their arguments alone. A fleet calls them with
// the same few arguments at every site (the same BMC driver, cluster
// network, image set name, install-config override), and each evaluation
// would otherwise compute them again.
//
// Only results of evaluations that succeeded are kept (an evaluation that
// failed may have cached a value its error then disowned), only from the
// evaluation's base frame (a `with` pushes a frame of its own), and only
// up to maxPureResults; they are looked up only from the base frame. The
// table is replaced, never changed, so that readers take no lock.
type pureResults struct {
	// pure are the paths of those functions, e.g. data.siteops.lib.bmc_tls.
	pure map[string]bool
	// ops memoizes, per operator term of a call, whether it names one.
	ops sync.Map // *ast.Term -> bool

	mu sync.Mutex
	// table is split by hash into shards, each replaced whole when a
	// result is added: a copy costs a shard, not every result kept.
	table [pureShards]atomic.Pointer[map[int][]cacheEntry]
	size  int
	// seen holds the hashes of calls made once: a result is kept the
	// second time its call is made, so that values of one site (a host
	// name, a MAC) do not fill the table.
	seen map[int]bool
}

// Bounds of the kept results and of the calls remembered as made once: a
// fleet makes a few dozen distinct calls more than once.
const (
	maxPureResults = 4096
	maxSeenOnce    = 1 << 16
	pureShards     = 256
)

// shard is the table shard of a hash.
func (p *pureResults) shard(hash int) *atomic.Pointer[map[int][]cacheEntry] {
	return &p.table[uint(hash)%pureShards]
}

// newPureResults finds the pure functions of the built-in library: rules
// with arguments under data.siteops, none of whose rules reached reads the
// input, data outside the built-in rules, or the fleet, or calls a
// non-deterministic built-in.
func newPureResults(c *ast.Compiler) *pureResults {
	p := &pureResults{pure: map[string]bool{}}
	for _, m := range c.Modules {
		if !m.Package.Path.HasPrefix(builtinRoot) {
			continue
		}
		for _, r := range m.Rules {
			if len(r.Head.Args) == 0 {
				continue
			}
			path := r.Ref().GroundPrefix()
			if p.pure[path.String()] || !pureRule(c, r) {
				continue
			}
			p.pure[path.String()] = true
		}
	}
	// A function is pure only if every one of its definitions is.
	for _, m := range c.Modules {
		for _, r := range m.Rules {
			if len(r.Head.Args) > 0 && p.pure[r.Ref().GroundPrefix().String()] && !pureRule(c, r) {
				delete(p.pure, r.Ref().GroundPrefix().String())
			}
		}
	}
	return p
}

// pureRule reports whether a rule and every rule it reaches read neither
// the input nor data other than the built-in rules (the fleet excluded),
// and call no non-deterministic built-in.
func pureRule(c *ast.Compiler, r *ast.Rule) bool {
	pure := true
	for _, x := range reachedFrom(c, r) {
		ast.WalkRefs(x, func(ref ast.Ref) bool {
			switch {
			case ref.HasPrefix(ast.InputRootRef):
				pure = false
			case ref.HasPrefix(ast.DefaultRootRef) && (!ref.HasPrefix(builtinRoot) || mayReachFleet(ref)):
				pure = false
			}
			return !pure
		})
		ast.WalkExprs(x, func(e *ast.Expr) bool {
			if e.IsCall() {
				if b, ok := ast.BuiltinMap[e.Operator().String()]; ok && b.Nondeterministic {
					pure = false
				}
			}
			return !pure
		})
		if !pure {
			return false
		}
	}
	return true
}

// isPure reports whether the operator term of a call names a pure
// function.
func (p *pureResults) isPure(op *ast.Term) bool {
	if v, ok := p.ops.Load(op); ok {
		return v.(bool)
	}
	ref, ok := op.Value.(ast.Ref)
	pure := ok && p.pure[ref.String()]
	p.ops.Store(op, pure)
	return pure
}

// get returns the kept result of a call, nil when there is none.
func (p *pureResults) get(hash int, ref ast.Ref) *ast.Term {
	table := p.shard(hash).Load()
	if table == nil {
		return nil
	}
	for _, e := range (*table)[hash] {
		if e.ref.Equal(ref) {
			return e.value
		}
	}
	return nil
}

// keep takes the results of pure calls from the base frame of a cache
// whose evaluation succeeded.
func (p *pureResults) keep(c *ruleCache) {
	var fresh []cacheEntry
	for h, list := range c.frames[0] {
		for _, e := range list {
			if e.value == nil || len(e.ref) < 2 || !p.isPure(e.ref[0]) || !e.ref.IsGround() || p.get(h, e.ref) != nil {
				continue
			}
			fresh = append(fresh, e)
		}
	}
	if len(fresh) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.seen == nil || len(p.seen) > maxSeenOnce {
		p.seen = map[int]bool{}
	}
	for _, e := range fresh {
		h := e.ref.Hash()
		if !p.seen[h] {
			p.seen[h] = true
			continue
		}
		if p.size >= maxPureResults {
			break
		}
		shard := p.shard(h)
		old := shard.Load()
		if old != nil && p.getIn(*old, h, e.ref) {
			continue
		}
		next := map[int][]cacheEntry{}
		if old != nil {
			for k, list := range *old {
				next[k] = list
			}
		}
		next[h] = append(next[h][:len(next[h]):len(next[h])], e)
		shard.Store(&next)
		p.size++
	}
}

func (p *pureResults) getIn(table map[int][]cacheEntry, h int, ref ast.Ref) bool {
	for _, e := range table[h] {
		if e.ref.Equal(ref) {
			return true
		}
	}
	return false
}
