package sim

import (
	"os"
	"context"
	"fmt"
	"testing"
	"time"
)

func TestDebugSNO(t *testing.T) {
	bundles := renderDir(t, "examples/fleet")
	e := newStepped(t, Options{})
	site := os.Getenv("SITE")
	if site == "" {
		return
	}
	apply(t, e, bundles[site], "rev1")
	for i := 0; i < 12*6; i++ {
		e.Advance(context.Background(), 5*time.Minute)
	}
	st := status(t, e, site)
	fmt.Println(dump(t, st))
}
