// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors

// The values a ``MotionHistoryBackend`` stores and reports. Plain values in API units, so that a
// daemon-backed backend can send them over a wire unchanged.

/// A history record with a wall-clock date.
package protocol DatedRecord: Sendable {
  var date: Date { get set }
}

extension AccelerometerRecord: DatedRecord {}
extension AltitudeRecord: DatedRecord {}

/// One step: when it happened and the distance it covered.
package struct StepRecord: Sendable, Equatable {
  /// When the step happened (wall clock).
  package var date: Date
  /// The step's time on the source clock, s.
  package var timestamp: Double
  /// The stride of this step, m (from the stride model at the cadence of the moment).
  package var distance: Double

  package init(date: Date, timestamp: Double, distance: Double) {
    self.date = date
    self.timestamp = timestamp
    self.distance = distance
  }
}

/// A change of the floor counts: `ascended` and `descended` floors walked at `date`, counted at
/// `countedDate`.
package struct FloorRecord: Sendable, Equatable {
  /// When the floors were walked: what queries file them under.
  package var date: Date
  package var ascended: Int
  package var descended: Int
  /// When they were counted (the barometer reading that counted them): later than `date` when
  /// steps noted late showed a change to be walked after it settled. A live update they trigger
  /// covers the history up to here.
  package var countedDate: Date

  package init(date: Date, ascended: Int, descended: Int, countedDate: Date? = nil) {
    self.date = date
    self.ascended = ascended
    self.descended = descended
    self.countedDate = Swift.max(date, countedDate ?? date)
  }
}

/// A change of pedestrian activity: walking or running paused (about 2 s without a step) or
/// resumed.
package struct PedestrianEventRecord: Sendable, Equatable {
  package var date: Date
  package var isPause: Bool

  package init(date: Date, isPause: Bool) {
    self.date = date
    self.isPause = isPause
  }
}

/// An activity that began at `date` (source time `timestamp`).
package struct ActivityRecord: Sendable, Equatable {
  package var estimate: ActivityEstimate
  package var date: Date
  package var timestamp: Double

  package init(estimate: ActivityEstimate, date: Date, timestamp: Double) {
    self.estimate = estimate
    self.date = date
    self.timestamp = timestamp
  }
}

/// One barometer reading with its height in the standard atmosphere.
package struct AltitudeRecord: Sendable, Equatable {
  /// The source timestamp, s.
  package var timestamp: Double
  package var date: Date
  /// Pressure, kPa.
  package var pressure: Double
  /// Height in metres on a scale whose differences are altitude changes (relative to the first
  /// reading the backend saw).
  package var altitude: Double

  package init(timestamp: Double, date: Date, pressure: Double, altitude: Double) {
    self.timestamp = timestamp
    self.date = date
    self.pressure = pressure
    self.altitude = altitude
  }
}

/// One recorded accelerometer sample, in g with Apple's sign (gravity included).
package struct AccelerometerRecord: Sendable, Equatable {
  package var identifier: UInt64
  package var timestamp: Double
  package var date: Date
  package var acceleration: SIMD3<Double>

  package init(identifier: UInt64, timestamp: Double, date: Date, acceleration: SIMD3<Double>) {
    self.identifier = identifier
    self.timestamp = timestamp
    self.date = date
    self.acceleration = acceleration
  }
}

/// Pedometer totals over a window.
package struct PedometerSummary: Sendable, Equatable {
  package var startDate: Date
  package var endDate: Date
  package var numberOfSteps: Int
  /// m.
  package var distance: Double
  /// `nil` when floors are not counted.
  package var floorsAscended: Int?
  package var floorsDescended: Int?
  /// Time spent walking or running in the window, s: the gaps between consecutive steps that are
  /// at most the pause delay.
  package var activeDuration: Double
  /// Steps per second over the last few steps before the end of the window, while their walk had
  /// not paused by then (judged from when the last step was reported, as pause events are).
  package var recentCadence: Double?
  /// Metres per step of the last step in the window, when ``recentCadence`` is known.
  package var recentStride: Double?

  package init(
    startDate: Date, endDate: Date, numberOfSteps: Int = 0, distance: Double = 0,
    floorsAscended: Int? = nil, floorsDescended: Int? = nil, activeDuration: Double = 0,
    recentCadence: Double? = nil, recentStride: Double? = nil
  ) {
    self.startDate = startDate
    self.endDate = endDate
    self.numberOfSteps = numberOfSteps
    self.distance = distance
    self.floorsAscended = floorsAscended
    self.floorsDescended = floorsDescended
    self.activeDuration = activeDuration
    self.recentCadence = recentCadence
    self.recentStride = recentStride
  }
}
