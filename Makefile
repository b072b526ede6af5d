# siteops: build, test, lint, bench, run.
GO        ?= go
BIN       ?= bin/siteops
PKGS      ?= ./...
BENCH_SIZES  ?= 1000,10000
BENCH_SHAPES ?= sno,ha

.PHONY: all build test lint bench run clean fuzz hub hub-build hub-demo

all: build

build:
	$(GO) build -o $(BIN) ./cmd/siteops

# test runs every test, including the conformance tests against the
# upstream generator's output and the CRD schema validation. It first
# installs what the tests need beyond Go (hack/test-deps.sh: Chromium,
# Argo CD, etcd and kube-apiserver, the last three built and cached by
# version, about 15 minutes cold); a test whose dependency could not be had
# fails under CI=true. A test that hangs fails after TEST_TIMEOUT with its
# name and stack, instead of holding up the run.
TEST_TIMEOUT ?= 20m
test:
	-hack/test-deps.sh
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) $(PKGS)
	cd hack/argocd && $(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./luahealth/ ./examplecheck/

lint:
	$(GO) vet $(PKGS)
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# bench prints the figures: wall time, sites/s and peak RSS of `siteops
# render` and `siteops check` over generated fleets (check beside conftest
# when it is on PATH), the engine's wall time to all Installed and peak RSS
# of 3,500 single-node sites at --speed 60 and 10,000 at --speed max (and
# 100,000 at --speed max under a soft memory limit of 3,400 MiB), the Go
# micro-benchmarks, the loop's: `siteops run` on 10,000- and 50,000-site
# repositories (first pass, one-site commit to status pushed, RSS after
# each commit; 50,000 sites as SiteConfig files, since one kustomization
# cannot list that many generators, and at a speed where they do not
# install, the commits timed right after the first pass), the Argo CD
# plugin path (argocd-cmp-server with examples/argocd/plugin.yaml) beside
# `siteops render` on 1,000 sites, and the hub engine's: 1,000 single-node
# sites applied to a local API server, then again after a restart with
# nothing changed (requests, peak RSS), and the hardware-free path:
# 1,000 single-node sites through `siteops run --engine hub` and `siteops
# hub-sim --speed max` on a local API server (wall to all Installed, API
# requests, peak RSS of each process, etcd size).
bench: build
	$(GO) run ./hack/benchrender -bin $(BIN) -sizes $(BENCH_SIZES) -shapes $(BENCH_SHAPES) -manifests 20 -runs 3
	$(GO) run ./hack/benchrender -bin $(BIN) -sizes 1000 -shapes sno,ha -layouts generators,overlays,files/clusterinstance -manifests 20 -runs 3
	$(GO) run ./hack/benchcheck -bin $(BIN) -sizes $(BENCH_SIZES) -runs 3
	$(GO) run ./hack/benchengine -runs sno:3500@60,sno:10000@max
	$(GO) run ./hack/benchengine -runs sno:100000@max -memlimit 3400MiB -timeout 30m
	$(GO) run ./hack/benchhub -sites 1000
	$(GO) run ./hack/benchhubsim -bin $(BIN) -sites 1000
	$(GO) test -run '^$$' -bench . -benchmem ./render/ ./sites/ ./internal/yamlenc/ ./internal/blockyaml/ ./internal/kustomize/ ./policy/ ./engine/sim/
	$(GO) run ./hack/benchloop -bin $(BIN) -sites 10000 -changes 5
	$(GO) run ./hack/benchloop -bin $(BIN) -sites 50000 -layout files -speed 0.001 -changes 5 -timeout 60m
	$(GO) run ./hack/benchargocd -bin $(BIN) -sites 1000 -runs 3

# fuzz runs each fuzz target for a short while: the site decoder
# (SiteConfig and ClusterInstance), the manifest decoder, the block-style
# YAML reader against yaml.v3, rendering, the
# input document of the policies, the status writer, and the kustomize
# helpers (YAML writing, patches, strategic merges, plugin entries taken
# for paths).
FUZZTIME ?= 30s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeFile$$' -fuzztime $(FUZZTIME) ./sites/
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeManifest$$' -fuzztime $(FUZZTIME) ./sites/
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./internal/blockyaml/
	$(GO) test -run '^$$' -fuzz '^FuzzRender$$' -fuzztime $(FUZZTIME) ./render/
	$(GO) test -run '^$$' -fuzz '^FuzzInputDocument$$' -fuzztime $(FUZZTIME) ./policy/
	$(GO) test -run '^$$' -fuzz '^FuzzWriteStatus$$' -fuzztime $(FUZZTIME) ./reconciler/source/
	$(GO) test -run '^$$' -fuzz '^FuzzMarshalV2$$' -fuzztime $(FUZZTIME) ./internal/kustomize/
	$(GO) test -run '^$$' -fuzz '^FuzzReadPatch$$' -fuzztime $(FUZZTIME) ./internal/kustomize/
	$(GO) test -run '^$$' -fuzz '^FuzzSmMerge$$' -fuzztime $(FUZZTIME) ./internal/kustomize/
	$(GO) test -run '^$$' -fuzz '^FuzzPathOnly$$' -fuzztime $(FUZZTIME) ./internal/kustomize/

# run starts the loop on the example fleet bundled into the binary: it
# installs the sites with the simulated engine and serves the dashboard on
# http://127.0.0.1:8080/ (Ctrl-C stops it). RUN_FLAGS adds flags.
run: build
	$(BIN) run $(RUN_FLAGS)

# hub starts a Kubernetes hub on loopback (etcd and kube-apiserver built
# from the Go module proxy and cached under ~/.cache/siteops/hub, the
# upstream CRDs installed) and prints its kubeconfig path; Ctrl-C stops it.
# hub-build only builds the binaries (CI does it once before make test).
hub:
	$(GO) run ./hack/hub $(HUB_FLAGS)

hub-build:
	$(GO) run ./hack/hub -build-only

# hub-demo installs the example fleet through a real API server without
# hardware: a local hub, `siteops hub-sim` playing assisted-service, the
# bare-metal operator, BMAC and Hive on it, and `siteops run --engine hub`
# with the dashboard on http://127.0.0.1:8080/; Ctrl-C stops everything.
# HUB_DEMO_FLAGS adds flags (-speed max, -listen ADDR).
hub-demo: build
	$(GO) run ./hack/hubdemo -bin $(BIN) $(HUB_DEMO_FLAGS)

clean:
	rm -rf bin
