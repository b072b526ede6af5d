package main

import (
	"encoding/json"
	"testing"
)

// The steps of a "pass finished" line come out in the line's order,
// those under a millisecond left out.
func TestStepsOfThePassLine(t *testing.T) {
	line := `{"msg":"pass finished","kind":"full","duration":24058000000,` +
		`"steps":{"load":3159000000,"dedupe":2000000,"check":4212000000,"prune":0,"apply":11409000000,"write":5758000000}}`
	var e logEntry
	if err := json.Unmarshal([]byte(line), &e); err != nil {
		t.Fatal(err)
	}
	want := "load 3.159s, dedupe 2ms, check 4.212s, apply 11.409s, write 5.758s"
	if got := e.stepsText(); got != want {
		t.Errorf("stepsText = %q, want %q", got, want)
	}
	var none logEntry
	if err := json.Unmarshal([]byte(`{"msg":"status written"}`), &none); err != nil || none.stepsText() != "" {
		t.Errorf("a line without steps: %q, %v", none.stepsText(), err)
	}
}
