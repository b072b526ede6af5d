# siteops: build, test, lint, bench, run.
GO        ?= go
BIN       ?= bin/siteops
PKGS      ?= ./...
BENCH_SIZES  ?= 1000,10000
BENCH_SHAPES ?= sno,ha

.PHONY: all build test lint bench run clean fuzz

all: build

build:
	$(GO) build -o $(BIN) ./cmd/siteops

# test runs every test, including the conformance tests against the
# upstream generator's output and the CRD schema validation.
test:
	$(GO) test -count=1 $(PKGS)

lint:
	$(GO) vet $(PKGS)
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# bench prints the figures: wall time, sites/s and peak RSS of `siteops
# render` and `siteops check` over generated fleets (check beside conftest
# when it is on PATH), the engine's wall time to all Installed and peak RSS
# of 3,500 single-node sites at --speed 60 and 10,000 at --speed max, the Go
# micro-benchmarks, and the loop's: `siteops run` on a 10,000-site
# repository (first pass, one-site commit to status pushed).
bench: build
	$(GO) run ./hack/benchrender -bin $(BIN) -sizes $(BENCH_SIZES) -shapes $(BENCH_SHAPES) -manifests 20 -runs 3
	$(GO) run ./hack/benchrender -bin $(BIN) -sizes 1000 -shapes sno,ha -layouts generators,overlays,files/clusterinstance -manifests 20 -runs 3
	$(GO) run ./hack/benchcheck -bin $(BIN) -sizes $(BENCH_SIZES) -runs 3
	$(GO) run ./hack/benchengine -runs sno:3500@60,sno:10000@max
	$(GO) test -run '^$$' -bench . -benchmem ./render/ ./sites/ ./internal/yamlenc/ ./internal/kustomize/ ./policy/ ./engine/sim/
	$(GO) run ./hack/benchloop -bin $(BIN) -sites 10000 -changes 5

# fuzz runs each fuzz target for a short while: the site decoder
# (SiteConfig and ClusterInstance), the manifest decoder, rendering, the
# input document of the policies, and the status writer.
FUZZTIME ?= 30s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeFile$$' -fuzztime $(FUZZTIME) ./sites/
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeManifest$$' -fuzztime $(FUZZTIME) ./sites/
	$(GO) test -run '^$$' -fuzz '^FuzzRender$$' -fuzztime $(FUZZTIME) ./render/
	$(GO) test -run '^$$' -fuzz '^FuzzInputDocument$$' -fuzztime $(FUZZTIME) ./policy/
	$(GO) test -run '^$$' -fuzz '^FuzzWriteStatus$$' -fuzztime $(FUZZTIME) ./reconciler/source/

# run starts the loop on the example fleet bundled into the binary: it
# installs the sites with the simulated engine and serves the dashboard on
# http://127.0.0.1:8080/ (Ctrl-C stops it). RUN_FLAGS adds flags.
run: build
	$(BIN) run $(RUN_FLAGS)

clean:
	rm -rf bin
