// SPDX-License-Identifier: Apache-2.0

import MotionSensors

/// One stream a client asked for with `Subscribe`.
struct ClientSubscription: Sendable {
  /// The `request_id` of the `Subscribe` request; stream messages carry it.
  var id: UInt64
  /// Raw readings to deliver (empty: none).
  var sensors: SensorSet
  /// Delivery rate of raw samples, Hz (already clamped to the source's range).
  var rate: Double
  var pedometer: Bool
  var activity: Bool
  var altitude: Bool
  var decimator: RateDecimator
  /// Messages of this subscription dropped since the last one sent (reported in the next batch).
  var unreportedDrops: UInt64 = 0
}
