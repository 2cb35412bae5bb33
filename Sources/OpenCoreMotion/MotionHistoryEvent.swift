// SPDX-License-Identifier: Apache-2.0

import MotionSensors

/// What a ``MotionHistoryBackend`` tells its live subscribers, in order. Each record is already in
/// the history when its event arrives, so a query made from the handler includes it.
package enum MotionHistoryEvent: Sendable {
  /// A step was counted.
  case step(StepRecord)
  /// Floors were completed.
  case floors(FloorRecord)
  /// Walking or running paused or resumed.
  case pedestrian(PedestrianEventRecord)
  /// The activity changed (the first one is the activity at the start of observation).
  case activity(ActivityRecord)
  /// A barometer reading.
  case altitude(AltitudeRecord)
  /// The source failed (it may continue afterwards).
  case failure(SourceFailure)
  /// The source has no more samples.
  case finished
}
