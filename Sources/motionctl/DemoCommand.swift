// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import MotionMath
import MotionRecognition
import MotionSensors
import OpenCoreMotion
import SourceComposition

/// `motionctl demo`: the classic Core Motion sample app as a terminal readout.
struct DemoCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "demo",
    abstract:
      "Live device-motion readout: attitude, gravity, user acceleration, rotation rate, orientation.",
    discussion: """
      With no options it runs the built-in simulator's `tour` scenario in real time (all six \
      orientations, then a shake). On a terminal the readout is redrawn in place; when the output \
      is piped, each update is one plain line.
      """)

  @Option(
    help: "Simulator scenario to run (see `motionctl simulate --list`), or a scenario JSON file.")
  var scenario: String = "tour"

  @Option(
    help: "Source instead of the simulator, as in COREMOTION_SOURCE (e.g. replay:walk.csv, iio).")
  var source: String?

  @Option(help: "Updates per second.")
  var rate: Double = 20

  @Option(help: "Stop after this many seconds (default: when the source ends).")
  var duration: Double?

  @Option(
    help:
      "Reference frame: arbitrary, arbitrary-corrected, magnetic-north, true-north (or Apple's names)."
  )
  var frame: ReferenceFrameOption = .arbitrary

  func validate() throws {
    guard rate.isFinite, rate > 0, rate <= 1000 else {
      throw ValidationError("--rate must be in (0, 1000] Hz")
    }
    if let duration, !(duration.isFinite && duration > 0) {
      throw ValidationError("--duration must be a positive number of seconds")
    }
  }

  func run() throws {
    let specification =
      try source.map { try SourceSpecification(parsing: $0) }
      ?? .simulator(scenario: scenario)
    let sensorSource = try SourceFactory.makeSource(specification)
    let manager = CMMotionManager(source: sensorSource)
    guard manager.isDeviceMotionAvailable else {
      throw CLIError(
        "\(sensorSource.name) has no accelerometer and gyroscope: device motion is not available")
    }
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let session = SourceSession(source: sensorSource)
    let state = Locked(
      DemoState(readout: TerminalReadout(), title: "OpenCoreMotion demo: \(sensorSource.name)"))

    // Steps and activity from the same source, shown in the footer.
    let pedometer = CMPedometer(source: sensorSource)
    let activityManager = CMMotionActivityManager(source: sensorSource)
    if sensorSource.availableSensors.contains(.accelerometer) {
      pedometer.startUpdates(from: .distantPast) { data, _ in
        data.map { data in state.withLock { $0.steps = pedometerLine(data) } }
      }
      activityManager.startActivityUpdates(to: queue) { activity in
        activity.map { activity in state.withLock { $0.activity = activityLine(activity) } }
      }
    }

    manager.deviceMotionUpdateInterval = 1 / rate
    manager.startDeviceMotionUpdates(using: frame.frame, to: queue) { motion, error in
      session.emit(error) ?? motion.map { motion in state.withLock { $0.show(motion) } }
    }
    session.watchForEnd()
    session.wait(duration: duration)
    // Let updates already queued run; after a stop no handler would.
    queue.waitUntilAllOperationsAreFinished()
    manager.stopDeviceMotionUpdates()
    pedometer.stopUpdates()
    activityManager.stopActivityUpdates()
    queue.waitUntilAllOperationsAreFinished()
    session.end()
    if let failure = session.failure { throw CLIError(failure) }
  }
}

/// What the demo shows, updated on the handler's queue.
struct DemoState {
  var readout: TerminalReadout
  var title: String
  /// The latest pedometer line (`steps N  distance …`).
  var steps = "steps 0"
  /// The latest activity (`walking (medium)`).
  var activity = "n/a"
  /// Classifies the device orientation from gravity, with the same hysteresis UIDevice uses.
  private var orientation = OrientationClassifier()

  init(readout: TerminalReadout, title: String) {
    self.readout = readout
    self.title = title
  }

  mutating func show(_ motion: CMDeviceMotion) {
    let degrees = Units.degreesPerRadian
    let attitude = motion.attitude
    let rows: [TerminalReadout.Row] = [
      .init(
        label: "Attitude (°)",
        values: [
          ("roll", attitude.roll * degrees), ("pitch", attitude.pitch * degrees),
          ("yaw", attitude.yaw * degrees),
        ],
        fullScale: 180, unit: ""),
      .init(
        label: "Gravity (g)",
        values: [("x", motion.gravity.x), ("y", motion.gravity.y), ("z", motion.gravity.z)],
        fullScale: 1, unit: ""),
      .init(
        label: "User accel (g)",
        values: [
          ("x", motion.userAcceleration.x), ("y", motion.userAcceleration.y),
          ("z", motion.userAcceleration.z),
        ],
        fullScale: 1, unit: ""),
      .init(
        label: "Rotation (rad/s)",
        values: [
          ("x", motion.rotationRate.x), ("y", motion.rotationRate.y), ("z", motion.rotationRate.z),
        ],
        fullScale: 3, unit: ""),
    ]
    let heading =
      motion.heading >= 0 ? String(format: "heading %5.1f°", motion.heading) : "heading n/a"
    let device = orientation.update(
      gravity: SIMD3(motion.gravity.x, motion.gravity.y, motion.gravity.z),
      timestamp: motion.timestamp)
    let footer = "Orientation: \(device)   \(heading)   \(steps)   activity \(activity)"
    let header = title + String(format: "   t = %.2f s", motion.timestamp)
    readout.draw(header: header, rows: rows, footer: footer)
  }
}
