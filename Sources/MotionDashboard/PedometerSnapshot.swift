// SPDX-License-Identifier: Apache-2.0

/// The pedometer, activity and altimeter values the page shows, as of the latest sample.
package struct PedometerSnapshot: Sendable, Equatable {
  /// Steps since the dashboard's source started.
  package var steps = 0
  /// Estimated distance walked, m.
  package var distance = 0.0
  /// Steps per second over the recent steps (`CMPedometerData.currentCadence`), or `nil` when
  /// not walking.
  package var cadence: Double?
  /// Seconds per metre (`CMPedometerData.currentPace`), or `nil` when not walking.
  package var pace: Double?
  /// Floors climbed and descended.
  package var floorsAscended = 0
  package var floorsDescended = 0
  /// `stationary`, `walking`, `running`, `cycling`, `automotive` or `unknown`.
  package var activity = "unknown"
  /// `low`, `medium` or `high`.
  package var confidence = "low"
  /// Metres since the first pressure sample (`CMAltitudeData.relativeAltitude`), or `nil` without
  /// a barometer.
  package var relativeAltitude: Double?
  /// The latest pressure, kPa.
  package var pressure: Double?

  package init() {}
}
