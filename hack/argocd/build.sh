#!/usr/bin/env bash
# Builds the pinned Argo CD release (argocd, which is also argocd-cmp-server
# when called by that name) and cmpclient, the repo-server's side of the
# plugin protocol, into $SITEOPS_CACHE/argocd/<version>/ (default
# $HOME/.cache/siteops) and prints that directory. A cold build takes about
# 10 minutes on 2 cores; later calls only check the binaries are there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
version=$(go list -m -f "{{.Version}}" github.com/argoproj/argo-cd/v3)
dir="${SITEOPS_CACHE:-$HOME/.cache/siteops}/argocd/$version"
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9
export GOFLAGS="${GOFLAGS:--buildvcs=false}"
if [ ! -x "$dir/argocd" ]; then
  echo "building Argo CD $version into $dir (about 10 minutes cold)" >&2
  go build -o "$dir/argocd.tmp" github.com/argoproj/argo-cd/v3/cmd
  mv "$dir/argocd.tmp" "$dir/argocd"
fi
ln -sf argocd "$dir/argocd-cmp-server"
key=$(cat go.mod go.sum cmpclient/*.go | sha256sum | cut -c1-16)
if [ ! -x "$dir/cmpclient" ] || [ "$(cat "$dir/cmpclient.key" 2>/dev/null)" != "$key" ]; then
  go build -o "$dir/cmpclient.tmp" ./cmpclient
  mv "$dir/cmpclient.tmp" "$dir/cmpclient"
  echo "$key" >"$dir/cmpclient.key"
fi
echo "$dir"
