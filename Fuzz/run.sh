#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds every fuzz target once (libFuzzer + address sanitizer) and runs each for SECONDS (default 20)
# from its seed corpus in Fuzz/Corpus/<target>/. Fails (non-zero) on the first crash, leak, timeout
# or sanitizer report; the reproducer is left in Fuzz/artifacts/<target>/.
#   Fuzz/run.sh 20          # CI: a few minutes in all
#   Fuzz/run.sh 600         # a longer run
# Leak detection is off by default: LeakSanitizer reports buffers leaked inside Foundation, not by
# our code (Data(contentsOf:) of an empty file leaks its 4096-byte read buffer; 38 bytes per
# FileManager.fileSystemRepresentation inside ZIPFoundation's Archive(url:)); set
# FUZZ_DETECT_LEAKS=1 to turn it on.
set -euo pipefail
seconds="${1:-20}"
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
scratch="${FUZZ_SCRATCH_PATH:-$here/.build-fuzz}"
# FuzzSourceSpecification links SourceComposition and with it the phone-stream transports (SwiftNIO,
# Hummingbird, AsyncHTTPClient, BoringSSL) and the daemon client: instrumenting all of that costs
# many minutes, so it runs only when asked for (FUZZ_TARGETS="... FuzzSourceSpecification").
read -r -a targets <<< "${FUZZ_TARGETS:-FuzzRecording FuzzColumnMapping FuzzIIOAttributes FuzzPhoneStreams}"
for product in "${targets[@]}"; do
  swift build -c debug --scratch-path "$scratch" --product "$product" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
done
bin="$(swift build -c debug --scratch-path "$scratch" --show-bin-path)"
status=0
leaks="${FUZZ_DETECT_LEAKS:-0}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=$leaks}"
for target in "${targets[@]}"; do
  corpus="$(mktemp -d)"
  # Seeds are read from the repository and new inputs go to a scratch folder (the repo stays clean).
  mkdir -p "artifacts/$target"
  echo "== $target: ${seconds}s"
  if ! "$bin/$target" "$corpus" "Corpus/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -detect_leaks="$leaks" -print_final_stats=1 -artifact_prefix="artifacts/$target/" 2>"$corpus.log"; then
    status=1
    tail -n 60 "$corpus.log"
    echo "!! $target failed; reproducer in Fuzz/artifacts/$target/"
  else
    grep -E "stat::number_of_executed_units|cov:" "$corpus.log" | tail -n 3 || true
  fi
  rm -rf "$corpus" "$corpus.log"
done
exit $status
