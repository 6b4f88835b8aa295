#!/bin/sh
# Regenerates src/containerd/gen from proto/ with the loader options used at run time (src/containerd/loader.ts).
set -eu
cd "$(dirname "$0")/../proto"
rm -rf ../src/containerd/gen
npx proto-loader-gen-types -I . --keepCase --longs=String --enums=String --defaults --oneofs \
  --grpcLib=@grpc/grpc-js --outDir=../src/containerd/gen \
  $(find github.com/containerd/containerd/api -name '*.proto' ! -path '*/ttrpc/*' | sort) \
  github.com/containerd/cgroups/stats/v1/metrics.proto github.com/containerd/cgroups/v2/stats/metrics.proto \
  github.com/containerd/containerd/runtime/v2/runc/options/oci.proto
