package irvm

import (
	"errors"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/ir"
)

// TestOwnership compiles hand-made plans that read input.o into a local,
// maybe make a new object in that local, and then insert into it: a plan
// whose insert may reach input.o itself must be refused (the input, data
// and kept values are shared), one whose make always runs first accepted.
func TestOwnership(t *testing.T) {
	str := func(i int) ir.Operand { return ir.Operand{Value: ir.StringIndex(i)} }
	loc := func(l int) ir.Operand { return ir.Operand{Value: ir.Local(l)} }
	readO := &ir.DotStmt{Source: loc(0), Key: str(0), Target: 2}          // L2 = input.o
	missing := &ir.DotStmt{Source: loc(0), Key: str(1), Target: 3}        // undefined: its block ends
	insert := &ir.ObjectInsertStmt{Object: 2, Key: str(2), Value: str(3)} // L2.k = "v"
	for _, c := range []struct {
		name    string
		stmts   []ir.Stmt
		refused bool
	}{
		{"insert into a value read", []ir.Stmt{readO, insert}, true},
		{"a make in a block that may stop before it", []ir.Stmt{readO,
			&ir.BlockStmt{Blocks: []*ir.Block{{Stmts: []ir.Stmt{missing, &ir.MakeObjectStmt{Target: 2}}}}}, insert}, true},
		{"a make in a not's block", []ir.Stmt{readO,
			&ir.NotStmt{Block: &ir.Block{Stmts: []ir.Stmt{missing, &ir.MakeObjectStmt{Target: 2}}}}, insert}, true},
		{"a make in a scan's body, which may run no time", []ir.Stmt{readO, &ir.MakeArrayStmt{Target: 3},
			&ir.ScanStmt{Source: 3, Key: 4, Value: 5, Block: &ir.Block{Stmts: []ir.Stmt{&ir.MakeObjectStmt{Target: 2}}}}, insert}, true},
		{"a make in a block that always reaches it", []ir.Stmt{readO,
			&ir.BlockStmt{Blocks: []*ir.Block{{Stmts: []ir.Stmt{&ir.MakeObjectStmt{Target: 2}}}}}, insert}, false},
		{"a make before the insert", []ir.Stmt{readO, &ir.MakeObjectStmt{Target: 2}, insert}, false},
		{"a make, then the value read again", []ir.Stmt{&ir.MakeObjectStmt{Target: 2}, readO, insert}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			pol := &ir.Policy{
				Static: &ir.Static{Strings: []*ir.StringConst{{Value: "o"}, {Value: "missing"}, {Value: "k"}, {Value: "v"}}},
				Plans:  &ir.Plans{Plans: []*ir.Plan{{Name: "q", Blocks: []*ir.Block{{Stmts: c.stmts}}}}},
				Funcs:  &ir.Funcs{},
			}
			_, err := compile(pol, ast.NewObject(), nil)
			if refused := errors.Is(err, ErrUnsupported); refused != c.refused {
				t.Errorf("refused: %v (%v), want %v", refused, err, c.refused)
			}
		})
	}
}
