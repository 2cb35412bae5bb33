// swift-tools-version: 6.1
// SPDX-License-Identifier: Apache-2.0
//
// OpenCoreMotion: Apple's Core Motion API on Linux.
//
// Module graph (every arrow is a declared dependency; all point downwards; checked in CI with
// `swift build --build-tests --explicit-target-dependency-import-check=error`):
//
//   motionctl ─────────────────────────────────────── executable (+ MotionEvaluation, ArgumentParser, Logging)
//   motiond, MotionDaemon → MotionDashboard, OpenCoreMotion, SourceComposition, MotionDetectors,
//                           MotionDaemonProtocol, GRDB       the daemon: shared sensors, history, its dashboard
//   MotionDashboard       → OpenCoreMotion, OpenUIDevice, SourceComposition, MotionDetectors,
//                           MotionServerSupport, Hummingbird(+WebSocket)  browser dashboard server
//   CoreMotion            Linux-only shim: re-exports OpenCoreMotion + OpenUIDevice
//   OpenUIDevice          → OpenCoreMotion, MotionRecognition, MotionSensors   UIDevice stand-in
//   OpenCoreMotion        → SourceComposition, MotionFusion, MotionRecognition, MotionDetectors,
//                           Geomagnetism, MotionDaemonClient, MotionSensors, MotionMath
//                                                                      the CM* API (+ gesture bridge)
//   SourceComposition     → MotionSensors, MotionDaemonClient, LinuxIIO (Linux only),
//                           PhoneStreams (trait PhoneStreams only)     COREMOTION_SOURCE → a SensorSource
//   MotionDaemonClient    → MotionDaemonProtocol (SwiftProtobuf)       client of motiond's Unix socket
//   PhoneStreams          → PhoneStreamDecoding, MotionServerSupport, Hummingbird, WSClient,
//                           AsyncHTTPClient                            phone apps' live streams
//   MotionServerSupport   → MotionConcurrency, NIOCore                 what both servers share (per-peer cap, drain)
//   PhoneStreamDecoding   → MotionSensors (Foundation only, fuzzable)  untrusted phone input → samples
//   MotionEvaluation      → MotionFusion, MotionRecognition, MotionDetectors, MotionSensors, MotionMath
//                                                                      accuracy metrics
//   LinuxIIO              → MotionSensors                              Industrial I/O hardware backend
//   (swift-log `Logging`: LinuxIIO, PhoneStreams, SourceComposition, MotionDaemonClient, OpenCoreMotion,
//   MotionDashboard, MotionDaemon — library diagnostics; motiond and motionctl set up its backend)
//   MotionSensors         → MotionMath, MotionConcurrency, ZIPFoundation
//                                                                      sources: simulator, recordings
//   MotionFusion          → MotionMath                                 attitude estimation
//   MotionRecognition     → MotionMath, MotionConcurrency              orientation, gestures, filters
//   MotionDetectors       → MotionMath                                 steps, floors, activity, altitude
//   Geomagnetism          (Foundation)                                 World Magnetic Model
//   MotionMath            (stdlib only)                                quaternions, frames, units
//   MotionConcurrency     (Foundation)                                 Locked, SubscriberFanOut, PowerOfTenReports
//
//   Support (not API): _MotionTestSupport → MotionMath, MotionConcurrency; _LinuxIIOTestSupport → LinuxIIO, MotionSensors
//   (fake IIO sysfs tree, IIO benchmark hook). Benchmarks/ is its own package depending on this one.
//
// Package traits (swift-tools 6.1; `#if TRAIT` in code):
//   PhoneStreams  (default) the phone-stream sources (`sensorlogger:`, `sensorserver:`, `phyphox:`),
//                 i.e. SourceComposition → PhoneStreams and with it SwiftNIO, Hummingbird and
//                 AsyncHTTPClient. An app that does not stream from a phone turns it off with
//                 `.package(url: …, from: …, traits: [])`, and its build compiles no NIO
//                 (docs/PhoneStreaming.md); `swift build --disable-default-traits` does so here.
//
// Custom compilation conditions (pass with `-Xswiftc -DNAME`):
//   MOTION_INTERNAL_CHECKS  enables the attitude estimator's invariant checks (unit quaternions,
//                           finite bias and heading) in release builds; debug builds (and so
//                           `swift test`) always have them.
import PackageDescription

// Swift 6 language mode (complete concurrency checking) for every target: `swiftLanguageModes`
// below.
let swiftSettings: [SwiftSetting] = []

var products: [Product] = [
  .library(name: "OpenCoreMotion", targets: ["OpenCoreMotion"]),
  .library(name: "OpenUIDevice", targets: ["OpenUIDevice"]),
  .library(name: "SourceComposition", targets: ["SourceComposition"]),
  .library(name: "MotionMath", targets: ["MotionMath"]),
  .library(name: "MotionFusion", targets: ["MotionFusion"]),
  .library(name: "Geomagnetism", targets: ["Geomagnetism"]),
  .library(name: "MotionSensors", targets: ["MotionSensors"]),
  .library(name: "PhoneStreamDecoding", targets: ["PhoneStreamDecoding"]),
  .library(name: "PhoneStreams", targets: ["PhoneStreams"]),
  .library(name: "MotionRecognition", targets: ["MotionRecognition"]),
  .library(name: "MotionDetectors", targets: ["MotionDetectors"]),
  .library(name: "LinuxIIO", targets: ["LinuxIIO"]),
  .library(name: "MotionEvaluation", targets: ["MotionEvaluation"]),
  .executable(name: "motionctl", targets: ["motionctl"]),
  // For the Benchmarks package only (not API): the fake IIO device behind the IIO benchmark.
  .library(name: "_LinuxIIOTestSupport", targets: ["_LinuxIIOTestSupport"]),
  .library(name: "MotionDashboard", targets: ["MotionDashboard"]),
  .library(name: "MotionDaemonClient", targets: ["MotionDaemonClient"]),
  .library(name: "MotionDaemon", targets: ["MotionDaemon"]),
  .executable(name: "motiond", targets: ["motiond"]),
]

var targets: [Target] = [
  // MARK: - Foundations (no knowledge of sources or of the Core Motion API)
  .target(name: "MotionMath", swiftSettings: swiftSettings),
  .target(name: "Geomagnetism", swiftSettings: swiftSettings),
  .target(name: "MotionFusion", dependencies: ["MotionMath"], swiftSettings: swiftSettings),
  // `Locked` and the one subscriber fan-out, shared by the sources and the gesture recognisers
  // (MotionSensors re-exposes both names to the modules above it).
  .target(name: "MotionConcurrency", swiftSettings: swiftSettings),
  .target(
    name: "MotionRecognition", dependencies: ["MotionMath", "MotionConcurrency"],
    swiftSettings: swiftSettings),
  // Step, activity, floor and altitude detectors: value types, no source knowledge.
  .target(name: "MotionDetectors", dependencies: ["MotionMath"], swiftSettings: swiftSettings),

  // MARK: - Sources (backends) and their composition
  .target(
    name: "MotionSensors",
    dependencies: [
      "MotionMath", "MotionConcurrency", .product(name: "ZIPFoundation", package: "ZIPFoundation"),
    ],
    swiftSettings: swiftSettings),
  .target(
    name: "LinuxIIO",
    dependencies: ["MotionSensors", .product(name: "Logging", package: "swift-log")],
    swiftSettings: swiftSettings),
  // Phone streams: decoding of untrusted phone input (Foundation only, fuzzable) and the transports
  // (Hummingbird, HummingbirdWebSocket, AsyncHTTPClient).
  .target(
    name: "PhoneStreamDecoding", dependencies: ["MotionSensors"], swiftSettings: swiftSettings),
  // What the NIO servers above (phone streams, dashboard) share; neither may import the other.
  .target(
    name: "MotionServerSupport",
    dependencies: ["MotionConcurrency", .product(name: "NIOCore", package: "swift-nio")],
    swiftSettings: swiftSettings),
  .target(
    name: "PhoneStreams",
    dependencies: [
      "MotionSensors", "PhoneStreamDecoding", "MotionServerSupport",
      .product(name: "Hummingbird", package: "hummingbird"),
      .product(name: "HummingbirdCore", package: "hummingbird"),
      // The SensorServer client sets up the library's client channel itself (WSCore's SPI).
      .product(name: "WSClient", package: "swift-websocket"),
      .product(name: "WSCore", package: "swift-websocket"),
      .product(name: "AsyncHTTPClient", package: "async-http-client"),
      .product(name: "NIOCore", package: "swift-nio"),
      .product(name: "NIOHTTP1", package: "swift-nio"),
      .product(name: "NIOPosix", package: "swift-nio"),
      .product(name: "NIOWebSocket", package: "swift-nio"),
      .product(name: "Logging", package: "swift-log"),
      .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
    ],
    swiftSettings: swiftSettings),
  .target(
    name: "SourceComposition",
    dependencies: [
      "MotionSensors", "MotionDaemonClient",
      .target(name: "LinuxIIO", condition: .when(platforms: [.linux])),
      // Only with the `PhoneStreams` trait: the one edge from the Core Motion API to SwiftNIO.
      .target(name: "PhoneStreams", condition: .when(traits: ["PhoneStreams"])),
      .product(name: "Logging", package: "swift-log"),
    ],
    swiftSettings: swiftSettings),

  // MARK: - Motion daemon protocol and client (below the API: `COREMOTION_SOURCE=daemon`)
  .target(
    name: "MotionDaemonProtocol",
    dependencies: [
      "MotionSensors", "MotionFusion", "MotionMath",
      .product(name: "SwiftProtobuf", package: "swift-protobuf"),
    ],
    exclude: ["regenerate.sh"],
    swiftSettings: swiftSettings),
  .target(
    name: "MotionDaemonClient",
    dependencies: [
      "MotionDaemonProtocol", "MotionSensors", "MotionFusion", "MotionMath",
      .product(name: "SwiftProtobuf", package: "swift-protobuf"),
      .product(name: "Logging", package: "swift-log"),
    ],
    swiftSettings: swiftSettings),

  // MARK: - Apple-compatible API
  .target(
    name: "OpenCoreMotion",
    dependencies: [
      "SourceComposition", "MotionFusion", "MotionRecognition", "MotionDetectors", "Geomagnetism",
      "MotionSensors",
      "MotionMath", "MotionDaemonClient", .product(name: "Logging", package: "swift-log"),
    ],
    swiftSettings: swiftSettings),
  .target(
    name: "OpenUIDevice", dependencies: ["OpenCoreMotion", "MotionRecognition", "MotionSensors"],
    swiftSettings: swiftSettings),

  // Live dashboard: a Hummingbird server pushing Core Motion values to a static page over a
  // WebSocket.
  .target(
    name: "MotionDashboard",
    dependencies: [
      "OpenCoreMotion", "OpenUIDevice", "SourceComposition", "MotionSensors", "MotionRecognition",
      "MotionDetectors", "MotionServerSupport",
      "MotionMath",
      .product(name: "Hummingbird", package: "hummingbird"),
      .product(name: "HummingbirdCore", package: "hummingbird"),
      .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
      .product(name: "NIOCore", package: "swift-nio"),
      .product(name: "NIOHTTP1", package: "swift-nio"),
      .product(name: "Logging", package: "swift-log"),
    ],
    resources: [.copy("Resources")],
    swiftSettings: swiftSettings),

  // MARK: - Motion daemon (motiond): shared sensors and history
  .target(
    name: "MotionDaemon",
    dependencies: [
      "MotionDaemonProtocol", "MotionSensors", "MotionDetectors", "MotionMath", "MotionFusion",
      "OpenCoreMotion",
      "SourceComposition",
      "MotionDashboard",
      .product(name: "SwiftProtobuf", package: "swift-protobuf"),
      .product(name: "GRDB", package: "GRDB.swift"),
      .product(name: "Logging", package: "swift-log"),
    ],
    swiftSettings: swiftSettings),
  .executableTarget(
    name: "motiond",
    dependencies: [
      "MotionDaemon", .product(name: "ArgumentParser", package: "swift-argument-parser"),
      .product(name: "Logging", package: "swift-log"),
    ],
    swiftSettings: swiftSettings),

  // MARK: - Tooling
  .target(
    name: "MotionEvaluation",
    dependencies: [
      "MotionMath", "MotionFusion", "MotionRecognition", "MotionDetectors", "MotionSensors",
    ],
    swiftSettings: swiftSettings),
  .executableTarget(
    name: "motionctl",
    dependencies: [
      "OpenCoreMotion", "OpenUIDevice", "SourceComposition", "MotionSensors", "MotionRecognition",
      "MotionMath",
      "Geomagnetism", "MotionEvaluation", "MotionDetectors", "MotionDashboard", "MotionDaemon",
      "MotionDaemonClient",
      .target(name: "LinuxIIO", condition: .when(platforms: [.linux])),
      .product(name: "ArgumentParser", package: "swift-argument-parser"),
      .product(name: "Logging", package: "swift-log"),
    ],
    swiftSettings: swiftSettings),

  // MARK: - Examples (command-line ports of Core Motion sample apps)
  .target(
    name: "ExampleSupport", dependencies: ["OpenCoreMotion", "SourceComposition", "MotionSensors"],
    path: "Examples/ExampleSupport", swiftSettings: swiftSettings),

  // MARK: - Test and benchmark support (not API)
  .target(
    name: "_MotionTestSupport", dependencies: ["MotionMath", "MotionConcurrency"],
    swiftSettings: swiftSettings),
  .target(
    name: "_LinuxIIOTestSupport", dependencies: ["LinuxIIO", "MotionSensors"],
    swiftSettings: swiftSettings),

  // MARK: - Unit test bundles
  .testTarget(name: "MotionMathTests", dependencies: ["MotionMath", "_MotionTestSupport"]),
  .testTarget(name: "GeomagnetismTests", dependencies: ["Geomagnetism"]),
  .testTarget(
    name: "MotionDetectorsTests",
    dependencies: ["MotionDetectors", "MotionSensors", "_MotionTestSupport"]),
  .testTarget(
    name: "MotionFusionTests",
    dependencies: ["MotionFusion", "MotionMath", "MotionSensors", "_MotionTestSupport"]),
  .testTarget(
    name: "MotionEvaluationTests",
    dependencies: [
      "MotionEvaluation", "MotionDetectors", "MotionFusion", "MotionSensors", "MotionMath",
      "_MotionTestSupport",
    ]),
  .testTarget(
    name: "MotionSensorsTests",
    dependencies: [
      "MotionSensors", "MotionMath", "_MotionTestSupport",
      .product(name: "ZIPFoundation", package: "ZIPFoundation"),
    ]),
  .testTarget(
    name: "PhoneStreamsTests",
    dependencies: [
      "PhoneStreams", "PhoneStreamDecoding", "MotionSensors", "_MotionTestSupport",
      .product(name: "Hummingbird", package: "hummingbird"),
      .product(name: "NIOCore", package: "swift-nio"),
      .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
      .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      .product(name: "Logging", package: "swift-log"),
    ]),
  .testTarget(
    name: "LinuxIIOTests",
    dependencies: ["LinuxIIO", "MotionSensors", "_LinuxIIOTestSupport", "_MotionTestSupport"]),
  .testTarget(
    name: "MotionRecognitionTests",
    dependencies: [
      "MotionRecognition", "MotionEvaluation", "MotionSensors", "MotionFusion", "MotionMath",
      "_MotionTestSupport",
    ]),
  .testTarget(
    name: "OpenCoreMotionTests",
    dependencies: [
      "OpenCoreMotion", "SourceComposition", "PhoneStreams", "MotionSensors", "LinuxIIO",
      "Geomagnetism", "MotionMath", "MotionFusion", "MotionDetectors",
      "MotionRecognition", "_LinuxIIOTestSupport", "_MotionTestSupport",
    ]),
  .testTarget(
    name: "ActivityTests",
    dependencies: ["MotionDetectors", "MotionEvaluation", "MotionSensors", "_MotionTestSupport"]),
  .testTarget(
    name: "MotionDaemonTests",
    dependencies: [
      "MotionConcurrency", "MotionDaemon", "MotionDaemonClient", "MotionDaemonProtocol",
      "MotionSensors", "MotionFusion", "MotionDashboard", "MotionDetectors", "MotionEvaluation",
      "MotionMath", "OpenCoreMotion", "SourceComposition", "_MotionTestSupport",
      .product(name: "SwiftProtobuf", package: "swift-protobuf"),
      .product(name: "GRDB", package: "GRDB.swift"),
      .product(name: "Logging", package: "swift-log"),
    ]),
  .testTarget(name: "MotionctlTests", dependencies: ["motionctl", "_MotionTestSupport"]),
  .testTarget(
    name: "MotionDashboardTests",
    dependencies: [
      "MotionDashboard", "MotionSensors", "OpenCoreMotion", "_MotionTestSupport",
      "SourceComposition", "motionctl", "MotionServerSupport", "MotionConcurrency",
      .product(name: "NIOCore", package: "swift-nio"),
      .product(name: "NIOPosix", package: "swift-nio"),
    ]),
]

// `import CoreMotion` on Linux. On Apple platforms the system framework owns that name, so the shim
// is not built there and our modules never shadow it.
#if os(Linux)
  products.append(.library(name: "CoreMotion", targets: ["CoreMotion"]))
  targets.append(
    .target(
      name: "CoreMotion", dependencies: ["OpenCoreMotion", "OpenUIDevice"],
      swiftSettings: swiftSettings))
#endif

// The example apps use `import CoreMotion`, which is the Linux shim above.
let exampleNames = [
  "Orientation", "ColorTilt", "Gyroscope", "Motion", "Clunk", "Facing", "Horizon",
  "MovementReporter",
]
// The examples that import MotionRecognition themselves (its gesture and orientation recognisers).
let examplesUsingRecognition: Set = ["ColorTilt", "Clunk", "Facing", "MovementReporter"]
#if os(Linux)
  for name in exampleNames {
    targets.append(
      .executableTarget(
        name: name + "Example",
        dependencies: ["CoreMotion", "ExampleSupport"]
          + (examplesUsingRecognition.contains(name) ? ["MotionRecognition"] : []),
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
  // iOS unit-test doubles (subclassed managers and data classes) with `import CoreMotion` alone:
  // compiled and run by ExamplesTests.
  targets.append(
    .executableTarget(
      name: "TestDoublesExample", dependencies: ["CoreMotion"], path: "Examples/TestDoubles",
      swiftSettings: swiftSettings))
  targets.append(
    .testTarget(
      name: "ExamplesTests",
      dependencies: [
        "OpenUIDevice", "OpenCoreMotion", "SourceComposition", "MotionSensors", "MotionRecognition",
        "_MotionTestSupport",
      ]
        + (exampleNames + ["QuickStart", "TestDoubles"]).map { .target(name: $0 + "Example") }))
#endif

let package = Package(
  name: "OpenCoreMotion",
  products: products,
  traits: [
    .trait(
      name: "PhoneStreams",
      description: "Phone-stream sources (Sensor Logger, SensorServer, phyphox) over SwiftNIO, "
        + "Hummingbird and AsyncHTTPClient; without it, `COREMOTION_SOURCE=sensorlogger:…` and the "
        + "other phone forms report that they were not built in."),
    .default(enabledTraits: ["PhoneStreams"]),
  ],
  // swift-protobuf and Hummingbird are taken without their default traits (none of which is
  // used here: protobuf's BinaryDelimitedStreams and FieldMaskUtilities, Hummingbird's
  // ConfigurationSupport and FullFoundation). With two traits enabled, SwiftPM passed their
  // `-D` flags in an order that changed from one invocation to the next (a `swift test` after a
  // `swift build` was enough), and each change recompiled both packages and every module above
  // them on a build with nothing changed.
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
    .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
    .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
    // Up to the next minor only: the SensorServer client uses the library's WSInternal SPI,
    // which carries no promise of stability.
    .package(
      url: "https://github.com/hummingbird-project/swift-websocket.git",
      .upToNextMinor(from: "1.6.2")),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0", traits: []),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    // `swift package generate-documentation --target OpenCoreMotion` (DocC catalogs in each
    // module).
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
  ],
  targets: targets,
  swiftLanguageModes: [.v6]
)
