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
  .library(name: "MotionRecognition", targets: ["MotionRecognition"]),
  .library(name: "MotionDetectors", targets: ["MotionDetectors"]),
  .library(name: "LinuxIIO", targets: ["LinuxIIO"]),
  .library(name: "MotionEvaluation", targets: ["MotionEvaluation"]),
  .executable(name: "motionctl", targets: ["motionctl"]),
  .executable(name: "motion-benchmarks", targets: ["MotionBenchmarks"]),
  .executable(name: "motiond", targets: ["motiond"]),
  .library(name: "MotionDaemonClient", targets: ["MotionDaemonClient"]),
]

var targets: [Target] = [
  // MARK: - Public API
  .target(name: "MotionMath", swiftSettings: swiftSettings),
  .target(name: "MotionFusion", dependencies: ["MotionMath"], swiftSettings: swiftSettings),
  .target(
    name: "MotionSensors", dependencies: ["MotionMath", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
    swiftSettings: swiftSettings),
  .target(name: "LinuxIIO", dependencies: ["MotionMath", "MotionSensors"], swiftSettings: swiftSettings),
  .target(name: "MotionRecognition", dependencies: ["MotionMath"], swiftSettings: swiftSettings),
  // Step, activity, floor and altitude detectors: value types, no source knowledge.
  .target(name: "MotionDetectors", dependencies: ["MotionMath"], swiftSettings: [.swiftLanguageMode(.v6)]),
  .target(
    name: "MotionEvaluation", dependencies: ["MotionMath", "MotionFusion", "MotionSensors"],
    swiftSettings: swiftSettings),
  .target(
    name: "OpenCoreMotion",
    dependencies: ["MotionMath", "MotionFusion", "MotionSensors", "LinuxIIO", "MotionRecognition", "MotionDaemonClient"],
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
      "LinuxIIO", "MotionEvaluation", "MotionDaemon", "MotionDaemonClient",
      .product(name: "ArgumentParser", package: "swift-argument-parser"),
      .product(name: "Logging", package: "swift-log"),
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

  // MARK: - Motion daemon (motiond): shared sensors, history, protocol and client
  .target(
    name: "MotionDaemonProtocol",
    dependencies: ["MotionSensors", .product(name: "SwiftProtobuf", package: "swift-protobuf")],
    exclude: ["regenerate.sh"],
    swiftSettings: [.swiftLanguageMode(.v6)]),
  .target(
    name: "MotionDaemonClient",
    dependencies: [
      "MotionDaemonProtocol", "MotionSensors", .product(name: "SwiftProtobuf", package: "swift-protobuf"),
      .product(name: "Logging", package: "swift-log"),
    ],
    swiftSettings: [.swiftLanguageMode(.v6)]),
  .target(
    name: "MotionDaemon",
    dependencies: [
      "MotionDaemonProtocol", "MotionSensors", "MotionDetectors", "MotionMath", "OpenCoreMotion",
      .product(name: "SwiftProtobuf", package: "swift-protobuf"),
      .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
    ],
    swiftSettings: [.swiftLanguageMode(.v6)]),
  .executableTarget(
    name: "motiond",
    dependencies: [
      "MotionDaemon", .product(name: "ArgumentParser", package: "swift-argument-parser"),
      .product(name: "Logging", package: "swift-log"),
    ],
    swiftSettings: [.swiftLanguageMode(.v6)]),
  .executableTarget(
    name: "DaemonBenchmarks",
    dependencies: [
      "MotionDaemon", "MotionDaemonClient", "MotionSensors", "OpenCoreMotion",
      .product(name: "Logging", package: "swift-log"),
    ],
    path: "Benchmarks/DaemonBenchmarks",
    swiftSettings: [.swiftLanguageMode(.v6)]),

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
  .testTarget(name: "LinuxIIOTests", dependencies: ["LinuxIIO", "MotionSensors", "_MotionTestSupport"]),
  .testTarget(
    name: "MotionRecognitionTests",
    dependencies: ["MotionRecognition", "MotionSensors", "MotionFusion", "_MotionTestSupport"]),
  .testTarget(
    name: "OpenCoreMotionTests",
    dependencies: [
      "OpenCoreMotion", "OpenUIDevice", "MotionSensors", "LinuxIIO", "MotionFusion", "_MotionTestSupport",
    ]),
  .testTarget(
    name: "MotionDaemonTests",
    dependencies: [
      "MotionDaemon", "MotionDaemonClient", "MotionDaemonProtocol", "MotionSensors", "MotionMath", "OpenCoreMotion",
      .product(name: "SwiftProtobuf", package: "swift-protobuf"), .product(name: "GRDB", package: "GRDB.swift"),
      .product(name: "Logging", package: "swift-log"),
    ],
    swiftSettings: [.swiftLanguageMode(.v6)]),
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
// An iOS-style client of the motion daemon, run by MotionDaemonTests.
targets.append(
  .executableTarget(
    name: "DaemonClientExample", dependencies: ["CoreMotion"], path: "Examples/DaemonClient",
    swiftSettings: swiftSettings))
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
    .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
  ],
  targets: targets,
  swiftLanguageModes: [.v5]
)
