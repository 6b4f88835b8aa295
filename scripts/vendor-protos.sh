#!/bin/sh
# Vendors the containerd 1.6 API protos (and what they import) from Debian's Go source packages into proto/.
# Needs: golang-github-containerd-containerd-dev golang-github-gogo-protobuf-dev golang-github-containerd-cgroups-dev
# Run once by hand when upgrading; CI never runs it (proto/ is committed).
set -eu
OUT=${1:-proto}
V=$(dpkg -L golang-github-containerd-containerd-dev | grep '/github.com/containerd/containerd/api/services/version/v1/version.proto$')
GOSRC=${V%/github.com/containerd/containerd/api/services/version/v1/version.proto}
FILES="$(cd "$GOSRC" && find github.com/containerd/containerd/api -name '*.proto' ! -path '*/ttrpc/*' | sort)
github.com/containerd/containerd/protobuf/plugin/fieldpath.proto
github.com/containerd/containerd/runtime/v2/runc/options/oci.proto
github.com/containerd/cgroups/stats/v1/metrics.proto
github.com/containerd/cgroups/v2/stats/metrics.proto
github.com/gogo/protobuf/gogoproto/gogo.proto
github.com/gogo/googleapis/google/rpc/status.proto"
for f in $FILES; do
  case $f in
    github.com/gogo/protobuf/*)   dst=${f#github.com/gogo/protobuf/} ;;
    github.com/gogo/googleapis/*) dst=${f#github.com/gogo/googleapis/} ;;
    *) dst=$f ;;
  esac
  mkdir -p "$OUT/$(dirname "$dst")"; cp "$GOSRC/$f" "$OUT/$dst"
done
