package report

import "testing"

func TestSince(t *testing.T) {
	f := func(rule, site, msg string, line int) Finding {
		return Finding{Rule: rule, Severity: Deny, Site: site, Message: msg, Pos: pos("s.yaml", line, 1)}
	}
	base := &Report{Findings: []Finding{
		f("r.mac", "a", "MAC x is also used by b", 10),
		f("r.vip", "a", "VIP y outside", 20),
		f("r.vip", "a", "VIP y outside", 21), // the same problem twice
		f("r.mac", "c", "MAC w is also used by site d at sites/d.yaml:29:11", 5),
	}}
	head := &Report{Sites: 2, Findings: []Finding{
		f("r.mac", "a", "MAC x is also used by b", 14), // moved down four lines: not new
		f("r.vip", "a", "VIP y outside", 24),
		f("r.vip", "a", "VIP y outside", 25),
		f("r.vip", "a", "VIP y outside", 26), // a third time: new
		f("r.vip", "b", "VIP y outside", 20), // another site: new
		f("r.mac", "a", "MAC z is also used by b", 30),
		f("r.mac", "c", "MAC w is also used by site d at sites/d.yaml:31:11", 5), // the other place moved
	}}
	head.Since(base, "origin/main")
	if head.PreExisting != 4 || head.Base != "origin/main" || len(head.Findings) != 3 {
		t.Fatalf("kept %v, pre-existing %d", head.Findings, head.PreExisting)
	}
	for i, want := range []int{26, 20, 30} {
		if head.Findings[i].Pos.Line != want {
			t.Errorf("finding %d at line %d, want %d", i, head.Findings[i].Pos.Line, want)
		}
	}
}
