// swift-tools-version: 6.0
// SPDX-License-Identifier: Apache-2.0
//
// libFuzzer targets for every parser that reads outside input, a package of their own so that the
// library's build is unaffected. Each target is an executable whose entry point is
// `LLVMFuzzerTestOneInput`; build them with the fuzzer and address sanitizer:
//
//   swift build --package-path Fuzz -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
//
// or run them all for a bounded time with `Fuzz/run.sh SECONDS` (seeds in Fuzz/Corpus/<target>/).
import PackageDescription

let fuzzSettings: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
  name: "OpenCoreMotionFuzz",
  dependencies: [
    .package(name: "OpenCoreMotion", path: "..")
  ],
  targets: [
    // The libFuzzer driver hand-off and the scratch file every target shares.
    .target(name: "FuzzSupport", path: "Targets/FuzzSupport", swiftSettings: fuzzSettings),
    // Recording formats and their detection (input written to a file under /dev/shm).
    .executableTarget(
      name: "FuzzRecording",
      dependencies: ["FuzzSupport", .product(name: "MotionSensors", package: "OpenCoreMotion")],
      path: "Targets/FuzzRecording", swiftSettings: fuzzSettings),
    // `--columns` mapping strings, and the mapping applied to a CSV.
    .executableTarget(
      name: "FuzzColumnMapping",
      dependencies: ["FuzzSupport", .product(name: "MotionSensors", package: "OpenCoreMotion")],
      path: "Targets/FuzzColumnMapping", swiftSettings: fuzzSettings),
    // COREMOTION_SOURCE strings.
    .executableTarget(
      name: "FuzzSourceSpecification",
      dependencies: [
        "FuzzSupport", .product(name: "SourceComposition", package: "OpenCoreMotion"),
      ],
      path: "Targets/FuzzSourceSpecification", swiftSettings: fuzzSettings),
    // IIO scan-element types (and decoding with them), sampling-frequency lists, mount matrices.
    .executableTarget(
      name: "FuzzIIOAttributes",
      dependencies: ["FuzzSupport", .product(name: "LinuxIIO", package: "OpenCoreMotion")],
      path: "Targets/FuzzIIOAttributes", swiftSettings: fuzzSettings),
    // Sensor Logger push bodies, SensorServer messages and phyphox answers through the decoders,
    // sequencing and reordering (PhoneStreamDecoding: no NIO, so the fuzz build stays small).
    .executableTarget(
      name: "FuzzPhoneStreams",
      dependencies: [
        "FuzzSupport", .product(name: "PhoneStreamDecoding", package: "OpenCoreMotion"),
      ],
      path: "Targets/FuzzPhoneStreams", swiftSettings: fuzzSettings),
  ]
)
