// SPDX-License-Identifier: Apache-2.0

import MotionSensors
import OpenCoreMotion

/// One stream a client asked for with `Subscribe`.
struct ClientSubscription {
  /// The `request_id` of the `Subscribe` request; stream messages carry it.
  var id: UInt64
  /// Raw readings to deliver (empty: none).
  var sensors: SensorSet
  /// Delivery rate of raw samples and fused motion, Hz (already clamped to the source's range).
  var rate: Double
  var pedometer: Bool
  var activity: Bool
  var altitude: Bool
  /// Whether the daemon's fused motion is delivered (at `rate`).
  var fusedMotion = false
  /// Picks the raw samples due at `rate` (the rule `CMMotionManager` uses in-process). It must see
  /// every timestamp of the source, due or not: it judges earliness by the source's own period.
  var decimator = UpdateDecimator(nominalSourcePeriod: 0)
  /// Picks the fusion estimates due at `rate` (apart from `decimator`: a subscription may take
  /// both, and each decimator must see every timestamp of its own stream once).
  var fusedMotionDecimator = UpdateDecimator(nominalSourcePeriod: 0)
  /// Device motion in a Core Motion reference frame, at `rate`, when asked for.
  var deviceMotion: DeviceMotionDelivery? = nil

  /// Seconds between deliveries.
  var interval: Double { 1 / rate }

  /// Whether this subscription reads the daemon's fusion (fused motion or device motion).
  var readsFusion: Bool { fusedMotion || deviceMotion != nil }
  /// Messages of this subscription dropped since the last one sent (reported in the next batch).
  var unreportedDrops: UInt64 = 0
}
