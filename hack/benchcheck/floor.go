package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// The floor of one OPA evaluation per site is measured in process by the
// policy package's BenchmarkEvaluate (policy/bench_test.go), on one
// goroutine over the input documents of a generated 1,000-site fleet: an
// empty query, one rule that reads one field and finds nothing, and the
// built-in library, run by internal/irvm as siteops check runs it and by
// OPA's topdown evaluator. benchcheck runs it with the go command and prints its
// CPU figures under the table.
const (
	floorBenchmark = "^BenchmarkEvaluate$"
	floorPackage   = "github.com/siteops/siteops/policy"
	floorEvals     = "3000x"
	floorTimeout   = 15 * time.Minute
)

// floorFigure is one sub-benchmark of BenchmarkEvaluate: CPU time per
// evaluation.
type floorFigure struct {
	name  string
	cpuUS float64
}

// measureFloor runs BenchmarkEvaluate; the working directory must be in
// the siteops module, as it is under make bench.
func measureFloor(ctx context.Context) ([]floorFigure, error) {
	ctx, cancel := context.WithTimeout(ctx, floorTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", floorBenchmark, "-benchtime", floorEvals, floorPackage)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("go test -bench %s %s: %w\n%s", floorBenchmark, floorPackage, err, out)
	}
	figures := parseFloor(out)
	if len(figures) == 0 {
		return nil, fmt.Errorf("go test -bench %s %s printed no cpu-µs/eval figure:\n%s", floorBenchmark, floorPackage, out)
	}
	return figures, nil
}

// parseFloor reads the lines of go test -bench output that report
// cpu-µs/eval, e.g.
//
//	BenchmarkEvaluate/one-rule-2   3000   8247 ns/op   7.846 cpu-µs/eval
func parseFloor(out []byte) []floorFigure {
	var figures []floorFigure
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || f[len(f)-1] != "cpu-µs/eval" || !strings.HasPrefix(f[0], "BenchmarkEvaluate/") {
			continue
		}
		v, err := strconv.ParseFloat(f[len(f)-2], 64)
		if err != nil {
			continue
		}
		name := strings.TrimPrefix(f[0], "BenchmarkEvaluate/")
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i] // the GOMAXPROCS suffix
			}
		}
		figures = append(figures, floorFigure{name, v})
	}
	return figures
}

// floorLabels says what each sub-benchmark is, for the printed line.
var floorLabels = map[string]string{
	"empty-query":     "an empty query",
	"one-rule":        "one rule that finds nothing (the floor per site)",
	"library":         "the built-in library",
	"library-topdown": "the same with OPA's topdown evaluator",
}

func printFloor(w io.Writer, figures []floorFigure) {
	parts := make([]string, len(figures))
	for i, f := range figures {
		label := floorLabels[f.name]
		if label == "" {
			label = f.name
		}
		parts[i] = fmt.Sprintf("%s %.1f µs", label, f.cpuUS)
	}
	fmt.Fprintf(w, "one policy evaluation per site, CPU time (go test -bench BenchmarkEvaluate %s): %s\n", floorPackage, strings.Join(parts, ", "))
}
