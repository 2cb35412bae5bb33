// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import MotionRecognition
import MotionSensors
import OpenCoreMotion
import OpenUIDevice  // MotionInput from Core Motion values
import SourceComposition

/// `motionctl monitor`: streams values or recognised events from a source, one line each.
struct MonitorCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "monitor",
    abstract: "Stream sensor values or motion events from a source, one line per update.",
    discussion: """
      WHAT is one of: \(MonitorTarget.allCases.map(\.rawValue).joined(separator: ", ")). Raw values \
      are in Core Motion units (g with Apple's sign, rad/s, µT). pedometer prints CMPedometer's \
      cumulative updates and pause/resume events, activity each CMMotionActivity change, altitude \
      CMAltimeter's events (m, kPa). The source is --source, else COREMOTION_SOURCE, else IIO \
      hardware when it is found, else the simulator's tour. A run that gets no sample (a \
      recording without a usable row, a live source silent for the whole --duration) ends with \
      an error.
      """)

  @Argument(help: "What to monitor.")
  var what: MonitorTarget = .raw

  @Option(
    help:
      "The source, as in COREMOTION_SOURCE (default: COREMOTION_SOURCE, else IIO hardware, else simulator:tour)."
  )
  var source: String?

  @Option(help: "Updates per second for value streams.")
  var rate: Double = 10

  @Option(help: "Stop after this many seconds (default: when the source ends).")
  var duration: Double?

  func validate() throws {
    guard rate.isFinite, rate > 0, rate <= 1000 else {
      throw ValidationError("--rate must be in (0, 1000] Hz")
    }
    if let duration, !(duration.isFinite && duration > 0) {
      throw ValidationError("--duration must be a positive number of seconds")
    }
  }

  func run() throws {
    let sensorSource = try monitoredSource(source)
    let manager = CMMotionManager(source: sensorSource)
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let session = SourceSession(source: sensorSource)
    let interval = 1 / rate
    var stopHistory: () -> Void = {}
    var historyObservedASample: () -> Bool = { true }
    // Updates the handlers received (nil for the history targets: their history tells whether it
    // observed a sample).
    var updates: Locked<Int>?

    switch what {
    case .raw, .accelerometer, .gyroscope, .magnetometer:
      updates = try startRawMonitor(
        what, manager: manager, interval: interval, queue: queue, session: session)
    case .deviceMotion:
      updates = try startDeviceMotionMonitor(
        manager: manager, interval: interval, queue: queue, session: session)
    case .pedometer, .activity, .altitude:
      (stopHistory, historyObservedASample) = try startHistoryMonitor(
        what, source: sensorSource, queue: queue, session: session)
    default:
      updates = try startEventMonitor(what, manager: manager, queue: queue, session: session)
    }

    // Watch for the end only now, so that a source played as fast as possible does not start
    // before the updates above are listening.
    session.watchForEnd()
    session.wait(duration: duration)
    // Let updates already queued run (a source played as fast as possible ends before they do);
    // after a stop no handler would.
    queue.waitUntilAllOperationsAreFinished()
    stopHistory()
    manager.stopAccelerometerUpdates()
    manager.stopGyroUpdates()
    manager.stopMagnetometerUpdates()
    manager.stopDeviceMotionUpdates()
    queue.waitUntilAllOperationsAreFinished()
    session.end()
    if let failure = session.failure { throw CLIError(failure) }
    guard updates?.withLock({ $0 }) == 0 || !historyObservedASample() else { return }
    // A source that ran to its end without one update is an error, not an empty success: a
    // recording with no usable row, or (device motion) one whose every sample the estimator
    // refused or that has no row with both an accelerometer and a gyroscope reading.
    if session.sourceFinished {
      guard what == .deviceMotion else {
        throw CLIError("\(sensorSource.name) ended without delivering a sample")
      }
      throw CLIError(
        "\(sensorSource.name) ended without a device-motion update: the estimator refused every "
          + "sample (\(ReplayCommand.refusalReasons)), or none had both an accelerometer and a "
          + "gyroscope reading")
    }
    // So is a live source (a phone that never connected, a stream without a gyroscope for device
    // motion) that delivered nothing for the whole `--duration`: the run printed nothing and
    // ended with status 0, as if it had been watched and found still.
    if let duration {
      let missing =
        what == .deviceMotion
        ? "device-motion update in \(duration) s (it needs an accelerometer and a gyroscope)"
        : "sample in \(duration) s"
      throw CLIError("\(sensorSource.name) delivered no \(missing)")
    }
  }
}

/// What `motionctl monitor` can show.
enum MonitorTarget: String, ExpressibleByArgument, CaseIterable {
  case raw, accelerometer, gyroscope, magnetometer
  case deviceMotion = "device-motion"
  case orientation, shake, tap, movement
  case pedometer, activity, altitude
}

/// The source for `monitor`: `--source`, else `COREMOTION_SOURCE`, else IIO hardware when it is
/// found, else the simulator's tour.
func monitoredSource(_ text: String?) throws -> any SensorSource {
  if let text { return try SourceFactory.makeSource(SourceSpecification(parsing: text)) }
  let fromEnvironment = try SourceSpecification.fromEnvironment()
  if case .automatic = fromEnvironment {
    let automatic = try SourceFactory.makeSource(.automatic)
    return automatic.availableSensors.isEmpty
      ? try SourceFactory.makeSource(.simulator(scenario: nil)) : automatic
  }
  return try SourceFactory.makeSource(fromEnvironment)
}

/// Starts the recogniser for an event target and prints one line per event. Returns the count of
/// updates the recogniser was given so far (read it once the queue is drained).
///
/// The detectors run in an ordinary update handler (device motion when the source has a gyroscope,
/// else the accelerometer), which subscribes at once, so a source played as fast as possible
/// cannot get ahead of the monitor.
func startEventMonitor(
  _ what: MonitorTarget, manager: CMMotionManager, queue: OperationQueue, session: SourceSession
) throws -> Locked<Int> {
  let updates = Locked(0)
  guard manager.isAccelerometerAvailable else {
    throw CLIError(
      "\(manager.source.name) has no accelerometer: no motion events can be recognised")
  }
  let describe: (MotionInput) -> String?
  switch what {
  case .orientation:
    var classifier = OrientationClassifier()
    describe = { input in
      classifier.update(input).map {
        String(
          format: "%10.3f orientation %@ (was %@)", $0.timestamp, "\($0.orientation)",
          "\($0.previous)")
      }
    }
  case .shake:
    var detector = ShakeDetector()
    describe = { input in
      detector.update(input).map { String(format: "%10.3f shake %@", $0.timestamp, "\($0.phase)") }
    }
  case .tap:
    var detector = TapDetector()
    describe = { input in
      detector.update(input).map {
        String(
          format: "%10.3f tap on the %@ side (peak %.2f g along %@)", $0.timestamp,
          "\($0.struckSide)", abs($0.peak[$0.axis.rawValue]), "\($0.axis)")
      }
    }
  case .movement:
    var detector = MovementDirectionDetector()
    describe = { input in
      detector.update(input).map {
        String(
          format: "%10.3f moved %@ (from %.3f s)", $0.timestamp, $0.direction.rawValue, $0.startTime
        )
      }
    }
  default:
    return updates
  }
  // Every sample the source gives: recognisers want the full rate.
  if manager.isDeviceMotionAvailable {
    manager.deviceMotionUpdateInterval = 0
    manager.startDeviceMotionUpdates(to: queue) { motion, error in
      session.emit(error)
        ?? motion.map {
          updates.withLock { $0 += 1 }
          if let line = describe(MotionInput($0)) { session.print(line) }
        }
    }
  } else {
    manager.accelerometerUpdateInterval = 0
    manager.startAccelerometerUpdates(to: queue) { data, error in
      session.emit(error)
        ?? data.map {
          updates.withLock { $0 += 1 }
          if let line = describe(MotionInput($0)) { session.print(line) }
        }
    }
  }
  return updates
}
