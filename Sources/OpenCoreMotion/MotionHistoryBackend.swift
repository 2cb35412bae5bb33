// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

/// Where ``CMPedometer``, ``CMMotionActivityManager``, ``CMAltimeter`` and ``CMSensorRecorder`` get
/// their history and live events from.
///
/// Two implementations are planned: ``InProcessMotionHistory`` runs the detectors inside the
/// process on a sensor source, so its history starts when the process started observing; a
/// daemon-backed one answers from a system-wide, persistent history. The API classes only talk to
/// this protocol. Dates are wall-clock; ranges are inclusive at both ends.
package protocol MotionHistoryBackend: AnyObject, Sendable {
  /// A name for messages (the source's name).
  var name: String { get }
  /// The sensors behind the history: steps and activity need the accelerometer, floors and
  /// altitude the barometer.
  var availableSensors: SensorSet { get }
  /// Whether floors are counted (a barometer and a floor counter).
  var countsFloors: Bool { get }

  /// Pedometer totals for the steps and floors dated in `start ... end`.
  func pedometerSummary(from start: Date, to end: Date) -> PedometerSummary
  /// The activities in force during `start ... end`, in time order: the one in force at `start`
  /// (which may have begun earlier), then those that began in the window.
  func activities(from start: Date, to end: Date) -> [ActivityRecord]
  /// The activity in force now, if any has been observed.
  var currentActivity: ActivityRecord? { get }

  /// The barometer readings dated in `start ... end`, in time order, about one per second.
  func altitudes(from start: Date, to end: Date) -> [AltitudeRecord]
  /// The pressure, kPa, at which this history's barometer read the start altitude `altitude` m
  /// (`AltitudeReference.startAltitude`): that of the first reading it was asked with for
  /// that altitude, `pressure` (read at `date`) when this reading is the first. Kept for an hour
  /// (weather drift: ``InProcessMotionHistory/startAltitudeAnchorLifetime``) in the history, which
  /// for the histories the API objects share lives as long as the process; another altitude (the
  /// device moved) replaces it.
  func pressure(atStartAltitude altitude: Double, reading pressure: Double, date: Date) -> Double

  /// Asks for accelerometer samples to be recorded at 50 Hz for `duration` seconds from now.
  func recordAccelerometer(forDuration duration: TimeInterval)
  /// The recorded accelerometer samples dated in `start ... end`, in time order.
  func recordedAccelerometer(from start: Date, to end: Date) -> [AccelerometerRecord]

  /// Delivers live events until the subscription is cancelled.
  func subscribe(_ handler: @escaping @Sendable (MotionHistoryEvent) -> Void) -> SourceSubscription

  /// Whether the user allows motion history (the daemon's `motionctl privacy` setting); when not,
  /// the API classes report ``CMAuthorizationStatus/denied`` and refuse queries and updates.
  var isHistoryAuthorized: Bool { get }

  /// The totals for live pedometer updates from `start`: called once when updates start; the
  /// returned function gives the totals from `start` to each update's date (the latest step).
  func pedometerUpdates(from start: Date) -> @Sendable (Date) -> PedometerSummary
}

extension MotionHistoryBackend {
  /// A history kept in the process is the process's own: always authorized (the environment's
  /// override aside, see ``CMAuthorizationStatus``).
  package var isHistoryAuthorized: Bool { true }

  /// The history's totals of each window (what the process observed since `start`).
  package func pedometerUpdates(from start: Date) -> @Sendable (Date) -> PedometerSummary {
    { [self] end in pedometerSummary(from: start, to: end) }
  }
}
