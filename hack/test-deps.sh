#!/usr/bin/env bash
# Installs what `make test` needs beyond Go, git and gcc, so that it runs
# on a fresh machine: headless Chromium (Debian's package) for the
# dashboard's browser test, Argo CD for the tests of examples/argocd, and
# etcd and kube-apiserver for the hub tests. The last two are built from
# the Go module proxy and cached under ~/.cache/siteops by version: about
# 15 minutes cold, nothing once cached. A step that fails is reported; the
# tests that need it then fail under CI=true with the reason.
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
if ! command -v chromium >/dev/null 2>&1 && [ -z "${SITEOPS_CHROMIUM:-}" ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "installing chromium (Debian package) for the dashboard's browser test" >&2
  { $sudo apt-get update -q && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; } >&2 || {
    echo "test-deps: chromium could not be installed; install it (apt-get install chromium) or set SITEOPS_CHROMIUM" >&2
    status=1
  }
fi
hack/argocd/build.sh >/dev/null || { echo "test-deps: building Argo CD failed" >&2; status=1; }
go run ./hack/hub -build-only >/dev/null || { echo "test-deps: building etcd and kube-apiserver failed" >&2; status=1; }
exit $status
