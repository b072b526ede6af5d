package policy

import (
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// ruleCache is the evaluator's cache of rule values and function results
// for one evaluation (topdown.VirtualCache), kept from one evaluation to
// the next: OPA's own builds a tree of hash maps per evaluation, which made
// a tenth of a check's allocations. Entries are found by the ref's hash;
// frames (pushed by a `with`) are maps emptied, not dropped, on Pop, and
// reset empties them all before the next evaluation.
type ruleCache struct {
	frames []map[int][]cacheEntry
	depth  int
	// shared holds results of pure functions from earlier evaluations,
	// looked up from the base frame; nil for none.
	shared *pureResults
}

type cacheEntry struct {
	ref   ast.Ref
	value *ast.Term // nil: the ref is undefined
}

var ruleCaches = sync.Pool{New: func() any {
	c := &ruleCache{}
	c.Push()
	return c
}}

// getRuleCache returns an empty cache; putRuleCache gives it back once the
// evaluation is over.
func getRuleCache() *ruleCache { return ruleCaches.Get().(*ruleCache) }

func putRuleCache(c *ruleCache) {
	for i := 0; i < c.depth; i++ {
		clear(c.frames[i])
	}
	c.depth = 1
	c.shared = nil
	ruleCaches.Put(c)
}

var _ topdown.VirtualCache = (*ruleCache)(nil)

func (c *ruleCache) Push() {
	if c.depth == len(c.frames) {
		c.frames = append(c.frames, map[int][]cacheEntry{})
	}
	c.depth++
}

func (c *ruleCache) Pop() {
	c.depth--
	clear(c.frames[c.depth])
}

func (c *ruleCache) top() map[int][]cacheEntry { return c.frames[c.depth-1] }

// Get returns the value cached for ref: (value, false) when defined,
// (nil, true) when recorded as undefined, (nil, false) when not cached.
func (c *ruleCache) Get(ref ast.Ref) (*ast.Term, bool) {
	h := ref.Hash()
	for _, e := range c.top()[h] {
		if e.ref.Equal(ref) {
			return e.value, e.value == nil
		}
	}
	if c.depth == 1 && c.shared != nil {
		return c.shared.get(h, ref), false
	}
	return nil, false
}

// Put records ref's value, or that it is undefined (value nil). The
// evaluator reuses the slice it passes, so that is copied (not its terms,
// which never change).
func (c *ruleCache) Put(ref ast.Ref, value *ast.Term) {
	frame, h := c.top(), ref.Hash()
	list := frame[h]
	for i := range list {
		if list[i].ref.Equal(ref) {
			list[i].value = value
			return
		}
	}
	frame[h] = append(list, cacheEntry{ref: append(ast.Ref(nil), ref...), value: value})
}

// Keys lists the refs with a value in the active frame.
func (c *ruleCache) Keys() []ast.Ref {
	var out []ast.Ref
	for _, list := range c.top() {
		for _, e := range list {
			if e.value != nil {
				out = append(out, e.ref)
			}
		}
	}
	return out
}
