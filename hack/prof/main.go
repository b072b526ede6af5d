//go:build ignore

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

func main() {
	dir := os.Args[1]
	f, _ := os.Create("/tmp/cpu.prof")
	pprof.StartCPUProfile(f)
	t0 := time.Now()
	root, _ := os.OpenRoot(dir)
	md, err := sites.ReadManifestDir(root.FS(), "extra-manifests")
	if err != nil {
		panic(err)
	}
	fleet, _ := sites.Load(context.Background(), root.FS(), []string{"."})
	t1 := time.Now()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	fmt.Println("load", t1.Sub(t0), len(fleet.Sites), "heap MB", ms.HeapAlloc>>20)
	r := render.New(render.WithDefaultManifests(md))
	enc, _ := render.NewEncoder(render.FormatYAML)
	n := 0
	r.Stream(context.Background(), fleet.Sites, enc, func(res render.Result) error { n += len(res.Encoded); io.Discard.Write(res.Encoded); return nil })
	fmt.Println("render", time.Since(t1), n>>20, "MB")
	pprof.StopCPUProfile()
	mf, _ := os.Create("/tmp/mem.prof")
	runtime.GC()
	pprof.WriteHeapProfile(mf)
}
