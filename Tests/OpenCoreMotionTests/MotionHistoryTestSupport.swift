// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest

@testable import OpenCoreMotion

/// Simulated sources and histories with fixed dates for the pedometer, activity, altimeter and
/// recorder tests. Everything is paced by a ``VirtualClock``: nothing sleeps, and a test sees
/// exactly the samples up to the time it advanced to.
enum HistoryFixture {
  /// The wall-clock date of source time 0 in every fixture.
  static let anchor = Date(timeIntervalSinceReferenceDate: 800_000_000)

  /// The date of source time `t` (s).
  static func date(_ t: Double) -> Date { anchor.addingTimeInterval(t) }

  /// Walking with the phone in hand: `restBefore` s still, `walk` s at `cadence` steps/s, then
  /// `restAfter` s still.
  static func walkScenario(
    restBefore: Double = 1, walk: Double = 20, cadence: Double = 1.8, restAfter: Double = 4
  ) -> Scenario {
    Scenario(
      name: "walk-test",
      segments: [
        .rest(duration: restBefore), .walk(cadence: cadence, speed: 1.3, duration: walk),
        .rest(duration: restAfter),
      ],
      initialAttitude: .eulerDegrees(roll: 0, pitch: 40, yaw: 0))
  }

  /// Still, then carried `rise` m straight up over `duration` s, then still.
  static func liftScenario(rise: Double = 10, duration: Double = 10) -> Scenario {
    Scenario(
      name: "lift-test",
      segments: [
        .rest(duration: 2), .translate(displacement: SIMD3(0, 0, rise), duration: duration),
        .rest(duration: 3),
      ],
      noise: .noiseless)
  }

  /// A player over `scenario`, paced by `clock`.
  static func player(_ scenario: Scenario, clock: VirtualClock) -> StreamPlayer {
    StreamPlayer(SimulatedSensorStream(scenario: scenario), pacing: .virtual(clock))
  }

  /// A history of `source` whose source time 0 is ``anchor``.
  static func history(_ source: any SensorSource) -> InProcessMotionHistory {
    InProcessMotionHistory(
      source: source, timeline: MotionTimeline(referenceDate: anchor, referenceTimestamp: 0))
  }

  /// A source with only a gyroscope (no accelerometer, no barometer).
  static func gyroscopeOnly(clock: VirtualClock) -> StreamPlayer {
    Synthetic.player(
      Synthetic.still(.identity, count: 500, start: 0, sensors: .gyroscope), sensors: .gyroscope,
      clock: clock)
  }
}

/// Runs `body` with a fresh expectation-free wait on `queue`: everything queued so far has run.
func drain(_ queue: OperationQueue) {
  queue.waitUntilAllOperationsAreFinished()
}

/// `start ... end` for a failure message, in s since the reference date: `Date.description`
/// traps on a date that is not finite.
func window(_ start: Date, _ end: Date) -> String {
  "\(start.timeIntervalSinceReferenceDate) ... \(end.timeIntervalSinceReferenceDate)"
}

/// The `CMErrorDomain` code of `error`, or `nil`.
func coreMotionCode(_ error: (any Error)?) -> Int? {
  guard let error = error as NSError?, error.domain == CMErrorDomain else { return nil }
  return error.code
}

/// A hand-made history for a test that scripts steps or activities only: the altimeter's and the
/// recorder's parts of ``MotionHistoryBackend`` answer as a history without a barometer or
/// recordings would, so that each such history spells out only what its test is about.
protocol StepsAndActivityOnlyHistory: MotionHistoryBackend {}

extension StepsAndActivityOnlyHistory {
  func altitudes(from start: Date, to end: Date) -> [AltitudeRecord] { [] }
  func pressure(atStartAltitude altitude: Double, reading pressure: Double, date: Date) -> Double {
    pressure
  }
  func recordAccelerometer(forDuration duration: TimeInterval) {}
  func recordedAccelerometer(from start: Date, to end: Date) -> [AccelerometerRecord] { [] }
}
