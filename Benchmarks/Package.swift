// swift-tools-version: 6.1
// SPDX-License-Identifier: Apache-2.0
//
// The benchmarks, a package of their own beside the library package (as swift-collections does),
// so that `motion-benchmarks` and the allocation counter are not products of OpenCoreMotion.
//
//   cd Benchmarks && swift run -c release motion-benchmarks
//
// Trait PhoneStreams (default) passes the library's trait of that name on. The leak soak builds
// with `--disable-default-traits`: motion-soak hands its player to the API itself, so the phone
// sources (and SwiftNIO, Hummingbird, AsyncHTTPClient under them) are code it never runs, and
// without them its AddressSanitizer build is 484 steps instead of 2,159.
import PackageDescription

let package = Package(
  name: "OpenCoreMotionBenchmarks",
  products: [
    .executable(name: "motion-benchmarks", targets: ["MotionBenchmarks"]),
    .executable(name: "motion-soak", targets: ["MotionSoak"]),
    .executable(name: "DaemonBenchmarks", targets: ["DaemonBenchmarks"]),
  ],
  traits: [.default(enabledTraits: ["PhoneStreams"]), "PhoneStreams"],
  dependencies: [
    .package(
      name: "OpenCoreMotion", path: "..",
      traits: [.trait(name: "PhoneStreams", condition: .when(traits: ["PhoneStreams"]))]),
    .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
  ],
  targets: [
    // Counts malloc calls (C, so that counting does not itself allocate).
    .target(name: "_AllocationCounter", path: "AllocationCounter"),
    .executableTarget(
      name: "MotionBenchmarks",
      dependencies: [
        "_AllocationCounter",
        .product(name: "OpenCoreMotion", package: "OpenCoreMotion"),
        .product(name: "MotionSensors", package: "OpenCoreMotion"),
        .product(name: "MotionFusion", package: "OpenCoreMotion"),
        .product(name: "MotionDetectors", package: "OpenCoreMotion"),
        .product(name: "LinuxIIO", package: "OpenCoreMotion"),
        .product(name: "_LinuxIIOTestSupport", package: "OpenCoreMotion"),
      ],
      path: "MotionBenchmarks"),
    // An hour of 100 Hz streams through the API with slow consumers; RSS over time (must be flat).
    .executableTarget(
      name: "MotionSoak",
      dependencies: [
        .product(name: "OpenCoreMotion", package: "OpenCoreMotion"),
        .product(name: "MotionSensors", package: "OpenCoreMotion"),
      ],
      path: "MotionSoak"),
    // Delivery latency and CPU through motiond against the same stream in-process; history costs.
    .executableTarget(
      name: "DaemonBenchmarks",
      dependencies: [
        .product(name: "MotionDaemon", package: "OpenCoreMotion"),
        .product(name: "MotionDaemonClient", package: "OpenCoreMotion"),
        .product(name: "OpenCoreMotion", package: "OpenCoreMotion"),
        .product(name: "SourceComposition", package: "OpenCoreMotion"),
        .product(name: "MotionSensors", package: "OpenCoreMotion"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "DaemonBenchmarks"),
  ],
  swiftLanguageModes: [.v6]
)
