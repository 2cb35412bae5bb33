#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Regenerates motiond.pb.swift from Protocol/motiond.proto. The generated file is committed; the
# build never runs protoc. Needs `protoc` (Debian: apt-get install protobuf-compiler) and
# protoc-gen-swift from swift-protobuf 1.39.0, built once OUTSIDE this repository, e.g.:
#   mkdir -p /tmp/protoc-gen && cd /tmp/protoc-gen && git clone --branch 1.39.0 --depth 1 \
#     https://github.com/apple/swift-protobuf && swift build --package-path swift-protobuf \
#     --product protoc-gen-swift -c release
# then: PROTOC_GEN_SWIFT=/tmp/protoc-gen/swift-protobuf/.build/release/protoc-gen-swift \
#   Sources/MotionDaemonProtocol/regenerate.sh
# Without Debian's protoc, grpcio-tools' bundled one does as well (`python -m grpc_tools.protoc` in
# a venv, behind a `protoc` wrapper on PATH): it reproduces the committed file byte for byte.
#
# The generated types are `package`, not `public` (Visibility=Package): this module is not a
# product, the package's own modules (MotionDaemonClient, MotionDaemon, motionctl, the tests) are
# its only users, and no public API of theirs may expose a wire type.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
plugin="${PROTOC_GEN_SWIFT:-$(command -v protoc-gen-swift || true)}"
if [[ -z "$plugin" || ! -x "$plugin" ]]; then
  echo "protoc-gen-swift not found: set PROTOC_GEN_SWIFT (see the comment at the top of $0)" >&2
  exit 1
fi
protoc --plugin=protoc-gen-swift="$plugin" --proto_path="$root/Protocol" \
  --swift_opt=Visibility=Package --swift_out="$here" "$root/Protocol/motiond.proto"
echo "wrote $here/motiond.pb.swift"
