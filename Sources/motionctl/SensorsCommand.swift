// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import MotionSensors
import OpenCoreMotion
import SourceComposition

#if os(Linux)
  import LinuxIIO
#endif

/// `motionctl sensors`: what the configured source offers.
struct SensorsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sensors",
    abstract: "List the sensors of a source (default: COREMOTION_SOURCE, else the hardware found).")

  @Option(help: "The source, as in COREMOTION_SOURCE.")
  var source: String?

  @Flag(
    help: "List the Linux IIO devices found (name, channels, rates, scale, mount matrix) and exit.")
  var iio = false

  func run() throws {
    let specification =
      try source.map { try SourceSpecification(parsing: $0) }
      ?? SourceSpecification.fromEnvironment()
    #if os(Linux)
      if iio || specification == .automatic || specification == .iio {
        let devices = try IIOSensorSource.listDevices()
        if devices.isEmpty {
          print(
            "IIO: no devices under \(ProcessInfo.processInfo.environment["COREMOTION_IIO_ROOT"] ?? "/sys/bus/iio/devices")"
          )
        }
        for device in devices { print(device.description) }
        if iio { return }
      }
    #else
      // LinuxIIO is built on Linux only (Package.swift); say so rather than listing nothing.
      if iio || specification == .iio {
        throw CLIError("IIO is Linux-only: this motionctl was built without the IIO backend")
      }
    #endif
    let sensorSource = try SourceFactory.makeSource(specification)
    print("source:      \(sensorSource.name)")
    let sensors = sensorSource.availableSensors
    print("sensors:     \(sensors.isEmpty ? "none" : sensors.names.joined(separator: ", "))")
    let rates = sensorSource.supportedSampleRates
    print("rates:       \(rates.lowerBound)…\(rates.upperBound) Hz")
    if let player = sensorSource as? StreamPlayer {
      for (key, value) in player.descriptor.metadata.sorted(by: { $0.key < $1.key }) {
        print("\(key):".padding(toLength: 13, withPad: " ", startingAt: 0) + value)
      }
    }
    let frames = CMMotionManager(source: sensorSource).supportedAttitudeReferenceFrames
    let frameNames = [
      CMAttitudeReferenceFrame.xArbitraryZVertical, .xArbitraryCorrectedZVertical,
      .xMagneticNorthZVertical, .xTrueNorthZVertical,
    ].filter { frames.contains($0) }.map(\.name)
    print("frames:      \(frameNames.isEmpty ? "none" : frameNames.joined(separator: ", "))")
  }
}
