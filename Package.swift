// swift-tools-version: 6.0
// SPDX-License-Identifier: Apache-2.0
//
// OpenCoreMotion: Apple's Core Motion API on Linux.
//
// Module graph (dependencies point downwards only):
//
//   motionctl, MotionBenchmarks          executables
//   CoreMotion                           Linux-only shim: re-exports OpenCoreMotion + OpenUIDevice
//   OpenUIDevice                         UIDevice orientation stand-in
//   OpenCoreMotion                       Apple-compatible API (CMMotionManager, CMDeviceMotion, ...)
//   MotionRecognition  LinuxIIO          orientation/gestures/filters; IIO hardware backend
//   MotionEvaluation                     accuracy metrics against ground truth (BROAD)
//   PhoneStreams                         phone apps' live streams (Hummingbird, WebSocket, AsyncHTTPClient)
//   PhoneStreamDecoding                  untrusted phone input → MotionSample (Foundation only, fuzzable)
//   MotionSensors      MotionFusion      sources (simulator, recordings); attitude estimation
//   MotionMath                           quaternions, rotations, frames, units (stdlib only)
//
// Custom compilation conditions (pass with `-Xswiftc -DNAME`):
//   MOTION_INTERNAL_CHECKS  enables the attitude estimator's invariant checks (unit quaternions,
//                           finite bias and heading); .ci/run runs the fusion and API tests with it.
import PackageDescription

let swiftSettings: [SwiftSetting] = []

var products: [Product] = [
  .library(name: "OpenCoreMotion", targets: ["OpenCoreMotion"]),
  .library(name: "OpenUIDevice", targets: ["OpenUIDevice"]),
  .library(name: "MotionMath", targets: ["MotionMath"]),
  .library(name: "MotionFusion", targets: ["MotionFusion"]),
  .library(name: "MotionSensors", targets: ["MotionSensors"]),
  .library(name: "PhoneStreamDecoding", targets: ["PhoneStreamDecoding"]),
  .library(name: "PhoneStreams", targets: ["PhoneStreams"]),
  .library(name: "MotionRecognition", targets: ["MotionRecognition"]),
  .library(name: "MotionDetectors", targets: ["MotionDetectors"]),
  .library(name: "LinuxIIO", targets: ["LinuxIIO"]),
  .library(name: "MotionEvaluation", targets: ["MotionEvaluation"]),
  .executable(name: "motionctl", targets: ["motionctl"]),
  .executable(name: "motion-benchmarks", targets: ["MotionBenchmarks"]),
]

var targets: [Target] = [
  // MARK: - Public API
  .target(name: "MotionMath", swiftSettings: swiftSettings),
  .target(name: "MotionFusion", dependencies: ["MotionMath"], swiftSettings: swiftSettings),
  .target(
    name: "MotionSensors", dependencies: ["MotionMath", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
    swiftSettings: swiftSettings),
  .target(name: "LinuxIIO", dependencies: ["MotionMath", "MotionSensors"], swiftSettings: swiftSettings),
  // Phone streams: decoding of untrusted phone input (no SwiftNIO, fuzzable) and the transports
  // (Hummingbird, HummingbirdWebSocket, AsyncHTTPClient). Only phone-stream users pay for NIO.
  .target(
    name: "PhoneStreamDecoding", dependencies: ["MotionSensors"],
    swiftSettings: [.swiftLanguageMode(.v6)]),
  .target(
    name: "PhoneStreams",
    dependencies: [
      "MotionSensors", "PhoneStreamDecoding",
      .product(name: "Hummingbird", package: "hummingbird"),
      .product(name: "HummingbirdCore", package: "hummingbird"),
      .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
      .product(name: "AsyncHTTPClient", package: "async-http-client"),
      .product(name: "NIOCore", package: "swift-nio"),
      .product(name: "NIOWebSocket", package: "swift-nio"),
      .product(name: "Logging", package: "swift-log"),
      .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
    ],
    swiftSettings: [.swiftLanguageMode(.v6)]),
  .target(name: "MotionRecognition", dependencies: ["MotionMath"], swiftSettings: swiftSettings),
  // Step, activity, floor and altitude detectors: value types, no source knowledge.
  .target(name: "MotionDetectors", dependencies: ["MotionMath"], swiftSettings: [.swiftLanguageMode(.v6)]),
  .target(
    name: "MotionEvaluation", dependencies: ["MotionMath", "MotionFusion", "MotionSensors"],
    swiftSettings: swiftSettings),
  .target(
    name: "OpenCoreMotion",
    dependencies: [
      "MotionMath", "MotionFusion", "MotionSensors", "LinuxIIO", "MotionRecognition", "PhoneStreams",
    ],
    swiftSettings: swiftSettings),
  .target(
    name: "OpenUIDevice",
    dependencies: ["OpenCoreMotion", "MotionRecognition"],
    swiftSettings: swiftSettings),

  // MARK: - Executables
  .executableTarget(
    name: "motionctl",
    dependencies: [
      "OpenCoreMotion", "OpenUIDevice", "MotionSensors", "MotionFusion", "MotionRecognition",
      "LinuxIIO", "MotionEvaluation",
      .product(name: "ArgumentParser", package: "swift-argument-parser"),
    ],
    swiftSettings: swiftSettings),
  .target(name: "_AllocationCounter", path: "Benchmarks/AllocationCounter"),
  .executableTarget(
    name: "MotionBenchmarks",
    dependencies: [
      "OpenCoreMotion", "MotionSensors", "MotionFusion", "MotionMath", "LinuxIIO", "MotionEvaluation",
      "_AllocationCounter",
    ],
    path: "Benchmarks/MotionBenchmarks",
    swiftSettings: swiftSettings),

  // MARK: - Examples (command-line ports of Core Motion sample apps)
  .target(
    name: "ExampleSupport", dependencies: ["OpenCoreMotion", "MotionSensors"], path: "Examples/ExampleSupport",
    swiftSettings: swiftSettings),

  // MARK: - Implementation details (not API)
  .target(name: "_MotionTestSupport", dependencies: ["MotionMath"], swiftSettings: swiftSettings),

  // MARK: - Unit test bundles
  .testTarget(name: "MotionMathTests", dependencies: ["MotionMath", "_MotionTestSupport"]),
  .testTarget(
    name: "MotionFusionTests",
    dependencies: ["MotionFusion", "MotionSensors", "_MotionTestSupport"]),
  .testTarget(
    name: "MotionEvaluationTests",
    dependencies: ["MotionEvaluation", "MotionSensors", "MotionFusion", "_MotionTestSupport"]),
  .testTarget(
    name: "MotionSensorsTests",
    dependencies: ["MotionSensors", "_MotionTestSupport", .product(name: "ZIPFoundation", package: "ZIPFoundation")]),
  .testTarget(
    name: "PhoneStreamsTests",
    dependencies: [
      "PhoneStreams", "PhoneStreamDecoding", "MotionSensors",
      .product(name: "Hummingbird", package: "hummingbird"),
      .product(name: "NIOCore", package: "swift-nio"),
      .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
      .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      .product(name: "Logging", package: "swift-log"),
    ]),
  .testTarget(name: "LinuxIIOTests", dependencies: ["LinuxIIO", "MotionSensors", "_MotionTestSupport"]),
  .testTarget(
    name: "MotionRecognitionTests",
    dependencies: ["MotionRecognition", "MotionSensors", "MotionFusion", "_MotionTestSupport"]),
  .testTarget(
    name: "OpenCoreMotionTests",
    dependencies: [
      "OpenCoreMotion", "OpenUIDevice", "MotionSensors", "LinuxIIO", "MotionFusion", "_MotionTestSupport",
      "PhoneStreams",
    ]),
  .testTarget(name: "MotionctlTests", dependencies: ["motionctl", "_MotionTestSupport"]),
]

// `import CoreMotion` on Linux. On Apple platforms the system framework owns that name, so the shim
// is not built there and our modules never shadow it.
#if os(Linux)
products.append(.library(name: "CoreMotion", targets: ["CoreMotion"]))
targets.append(
  .target(name: "CoreMotion", dependencies: ["OpenCoreMotion", "OpenUIDevice"], swiftSettings: swiftSettings))
#endif

// The example apps use `import CoreMotion`, which is the Linux shim above.
let exampleNames = ["Orientation", "ColorTilt", "Gyroscope", "Motion", "Clunk", "Facing", "Horizon", "MovementReporter"]
#if os(Linux)
for name in exampleNames {
  targets.append(
    .executableTarget(
      name: name + "Example", dependencies: ["CoreMotion", "MotionRecognition", "ExampleSupport"],
      path: "Examples/" + name, swiftSettings: swiftSettings))
}
// The README's program, verbatim: compiled and run by ExamplesTests.
targets.append(
  .executableTarget(
    name: "QuickStartExample", dependencies: ["CoreMotion"], path: "Examples/QuickStart",
    swiftSettings: swiftSettings))
targets.append(
  .testTarget(
    name: "ExamplesTests",
    dependencies: ["OpenUIDevice", "OpenCoreMotion", "MotionSensors", "MotionRecognition", "_MotionTestSupport"]
      + (exampleNames + ["QuickStart"]).map { .target(name: $0 + "Example") }))
#endif

let package = Package(
  name: "OpenCoreMotion",
  products: products,
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
    .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
  ],
  targets: targets,
  swiftLanguageModes: [.v5]
)
