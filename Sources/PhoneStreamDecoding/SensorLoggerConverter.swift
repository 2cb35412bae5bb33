// SPDX-License-Identifier: Apache-2.0

import MotionSensors

/// Turns Sensor Logger readings into ``MotionSample``s: units, signs and the choice of streams.
///
/// What Sensor Logger sends depends on the platform (awesome-sensor-logger UNITS.md,
/// COORDINATES.md, CROSSPLATFORM.md):
/// - `accelerometer` is *user* acceleration, gravity removed, in m/s² on both platforms;
///   `gravity` is gravity in m/s². On **Android** both use the applied-force sign (flat on a table
///   `gravity` reads +9.81 on z), so specific force = accelerometer + gravity. On **iOS** (without
///   "Standardise Units & Frames") they keep Core Motion's sign (flat: gravity −9.81 on z), so
///   specific force = −(accelerometer + gravity).
/// - `totalacceleration` (Android only) is the raw accelerometer, m/s², already specific force.
/// - `accelerometeruncalibrated` is specific force in m/s² on Android and on standardised iOS, but
///   on plain iOS it is Core Motion's raw reading in **g** with Core Motion's sign:
///   specific force = −9.80665 × value.
/// - gyroscope (rad/s) and magnetometer (µT) have the same sign on both; the uncalibrated streams
///   are preferred because ``MotionSample`` carries raw readings.
/// - `barometer.pressure` is in hPa (mbar); samples carry kPa.
///
/// One accelerometer source is used: `totalacceleration`, else `accelerometeruncalibrated`, else
/// `accelerometer` + `gravity` (paired within 0.1 s), so that the sample rate is not doubled.
package struct SensorLoggerConverter: Sendable {
  /// The sign and unit convention of a stream.
  package enum Convention: String, Sendable {
    /// Core Motion's sign, g for the uncalibrated accelerometer (iOS without standardisation).
    case iOS
    /// Android's sign, m/s² everywhere (Android, and iOS with "Standardise Units & Frames").
    case android
  }

  /// Standard gravity in m/s², the factor Sensor Logger uses between g and m/s².
  package static let standardGravity = 9.80665
  /// How far apart (ns) an `accelerometer` and a `gravity` reading may be to be added together.
  package static let gravityPairingTolerance: Int64 = 100_000_000

  /// The convention in use: given, or detected from the stream (`nil` until evidence arrives).
  package private(set) var convention: Convention?
  private var seenStreams: Set<String> = []
  private var lastGravity: (time: Int64, value: SIMD3<Double>)?
  private var hasReportedUndecided = false
  private var hasReportedMissingGravity = false
  /// Batches with readings while no accelerometer or no gyroscope stream has been seen.
  private var batchesWithoutInertialSensor = 0
  /// What the "no gyroscope" / "no accelerometer" notice of this recording said was missing.
  private var reportedMissing: SensorSet = []

  /// Creates a converter; `convention` `nil` means "detect from the stream".
  package init(convention: Convention?) {
    self.convention = convention
  }

  /// Forgets per-recording state (a new `sessionId` arrived); a detected convention is re-detected.
  package mutating func reset(keepingConvention given: Convention?) {
    self = SensorLoggerConverter(convention: given)
  }

  /// Converts one batch. Returns samples (one sensor each, in batch order sorted by time) and any
  /// failures to report (at most one "cannot tell the platform" notice per recording).
  package mutating func convert(
    _ batch: SensorLoggerBatch
  ) -> (
    samples: [MotionSample], failures: [SourceFailure]
  ) {
    if convention == nil { convention = Self.detectConvention(in: batch) }
    for reading in batch.readings { seenStreams.insert(reading.name) }
    let accelerometerStream =
      seenStreams.contains("totalacceleration")
      ? "totalacceleration"
      : seenStreams.contains("accelerometeruncalibrated")
        ? "accelerometeruncalibrated" : "accelerometer"
    let gyroscopeStream =
      seenStreams.contains("gyroscopeuncalibrated") ? "gyroscopeuncalibrated" : "gyroscope"
    let magnetometerStream =
      seenStreams.contains("magnetometeruncalibrated") ? "magnetometeruncalibrated" : "magnetometer"

    // Gravity first at equal times, so that an accelerometer reading finds its partner.
    let ordered = batch.readings.enumerated().sorted { a, b in
      let rankA = a.element.name == "gravity" ? 0 : 1
      let rankB = b.element.name == "gravity" ? 0 : 1
      return (a.element.time, rankA, a.offset) < (b.element.time, rankB, b.offset)
    }

    var samples: [MotionSample] = []
    var failures: [SourceFailure] = []
    var withheldAccelerometer = false
    for (_, reading) in ordered {
      let timestamp = phoneStreamSeconds(nanoseconds: reading.time)
      switch reading.name {
      case gyroscopeStream:
        samples.append(MotionSample(timestamp: timestamp, gyroscope: reading.vector))
      case magnetometerStream:
        samples.append(MotionSample(timestamp: timestamp, magnetometer: reading.vector))
      case "barometer":
        if let hectopascals = reading.values["pressure"] {
          samples.append(MotionSample(timestamp: timestamp, pressure: hectopascals / 10))
        }
      case "gravity":
        if let value = reading.vector { lastGravity = (reading.time, value) }
      case accelerometerStream:
        guard let value = reading.vector else { continue }
        guard let convention else {
          withheldAccelerometer = true
          continue
        }
        if let specificForce = specificForce(
          from: reading.name, value: value, time: reading.time, convention)
        {
          samples.append(MotionSample(timestamp: timestamp, accelerometer: specificForce))
        }
      default:
        continue
      }
    }
    if withheldAccelerometer && !hasReportedUndecided {
      hasReportedUndecided = true
      failures.append(
        SourceFailure(
          .other,
          "Sensor Logger: cannot tell whether the phone uses the iOS or the Android sign convention, so "
            + "accelerometer samples are withheld. Also stream Orientation and Gravity (or "
            + "AccelerometerUncalibrated), or add ?platform=ios or ?platform=android to COREMOTION_SOURCE.",
          isFatal: false))
    }
    if accelerometerStream == "accelerometer" && seenStreams.contains("accelerometer")
      && !seenStreams.contains("gravity") && !hasReportedMissingGravity
    {
      hasReportedMissingGravity = true
      failures.append(
        SourceFailure(
          .other,
          "Sensor Logger streams acceleration without gravity; enable the Gravity (or "
            + "TotalAcceleration / AccelerometerUncalibrated) sensor in the app to get accelerometer samples.",
          isFatal: false))
    }
    if let notice = missingInertialNotice(batch) { failures.append(notice) }
    return (samples, failures)
  }

  private var streamsGyroscope: Bool {
    seenStreams.contains("gyroscope") || seenStreams.contains("gyroscopeuncalibrated")
  }

  private var streamsAccelerometer: Bool {
    seenStreams.contains("accelerometer") || seenStreams.contains("accelerometeruncalibrated")
      || seenStreams.contains("totalacceleration")
  }

  /// The accelerometer or gyroscope (or both) this recording has been found not to stream: the
  /// notice of ``missingGyroscopeBatches`` is out, and no reading of it has come since. The
  /// receiver then offers neither, so they (and device motion) are not available.
  package var lackingSensors: SensorSet {
    var lacking = reportedMissing
    if streamsGyroscope { lacking.remove(.gyroscope) }
    if streamsAccelerometer { lacking.remove(.accelerometer) }
    return lacking
  }

  /// How many batches with readings but no gyroscope (or no accelerometer) make the notice due:
  /// more than one, so that a sensor that starts a little after the others and misses the first
  /// batch is not reported.
  package static let missingGyroscopeBatches = 3

  /// The notice, once per recording, that the phone streams no gyroscope, no accelerometer, or
  /// neither (a recording of the magnetometer and the barometer only).
  ///
  /// The receiver offers every sensor (what the phone streams is chosen in the app), so
  /// accelerometer updates, and device motion, which needs both, start and would otherwise never
  /// update, with no word why.
  private mutating func missingInertialNotice(_ batch: SensorLoggerBatch) -> SourceFailure? {
    guard reportedMissing.isEmpty, !batch.readings.isEmpty,
      !streamsAccelerometer || !streamsGyroscope
    else { return nil }
    batchesWithoutInertialSensor += 1
    guard batchesWithoutInertialSensor >= Self.missingGyroscopeBatches else { return nil }
    let message: String
    switch (streamsAccelerometer, streamsGyroscope) {
    case (true, _):
      reportedMissing = .gyroscope
      message =
        "Sensor Logger streams no gyroscope, so there is no device motion (attitude, gravity, user "
        + "acceleration); enable the Gyroscope (or GyroscopeUncalibrated) sensor in the app for it."
    case (false, true):
      reportedMissing = .accelerometer
      message =
        "Sensor Logger streams no accelerometer, so there are no accelerometer samples and no "
        + "device motion; enable the Accelerometer and Gravity (or TotalAcceleration) sensors in "
        + "the app for them."
    case (false, false):
      reportedMissing = .inertial
      message =
        "Sensor Logger streams neither an accelerometer nor a gyroscope, so there are no "
        + "accelerometer or gyroscope samples and no device motion; enable the Accelerometer, "
        + "Gravity and Gyroscope sensors in the app for them."
    }
    return SourceFailure(.other, message, isFatal: false)
  }

  private func specificForce(
    from stream: String, value: SIMD3<Double>, time: Int64, _ convention: Convention
  ) -> SIMD3<Double>? {
    switch (stream, convention) {
    case ("totalacceleration", _), ("accelerometeruncalibrated", .android):
      return value
    case ("accelerometeruncalibrated", .iOS):
      return -Self.standardGravity * value
    default:
      // User acceleration: add the gravity reading taken at (nearly) the same time.
      guard let gravity = lastGravity,
        Self.distance(gravity.time, time) <= UInt64(Self.gravityPairingTolerance)
      else {
        return nil
      }
      let total = value + gravity.value
      return convention == .android ? total : -total
    }
  }

  /// How far apart two phone times are in nanoseconds. Times come from the network, so the
  /// difference of two attacker-chosen `Int64`s is taken without overflow (as a magnitude).
  package static func distance(_ a: Int64, _ b: Int64) -> UInt64 {
    a >= b ? UInt64(bitPattern: a &- b) : UInt64(bitPattern: b &- a)
  }

  /// Looks for evidence of the platform's convention in one batch; `nil` if there is none.
  ///
  /// In order: an `accuracy` field or a `totalacceleration` stream exists only on Android; the
  /// uncalibrated accelerometer's magnitude is about 1 in g (plain iOS) and about 9.8 in m/s²; and
  /// gravity's z component has the sign of the orientation's "device z is up" component
  /// `R_zz = 1 − 2(qx² + qy²)` on Android and the opposite sign on iOS (both platforms report the
  /// attitude against a z-up reference, and `R_zz` does not depend on heading conventions).
  package static func detectConvention(in batch: SensorLoggerBatch) -> Convention? {
    if batch.readings.contains(where: { $0.hasAccuracy || $0.name == "totalacceleration" }) {
      return .android
    }
    let magnitudes = batch.readings.filter { $0.name == "accelerometeruncalibrated" }
      .compactMap { $0.vector.map { ($0 * $0).sum().squareRoot() } }.sorted()
    if !magnitudes.isEmpty {
      let median = magnitudes[magnitudes.count / 2]
      if median > 0.5 && median < 2.5 { return .iOS }
      if median > 5 && median < 25 { return .android }
    }
    let gravities = batch.readings.filter { $0.name == "gravity" }
    for orientation in batch.readings where orientation.name == "orientation" {
      guard let qx = orientation.values["qx"], let qy = orientation.values["qy"],
        let qz = orientation.values["qz"], let qw = orientation.values["qw"]
      else { continue }
      let normSquared = qw * qw + qx * qx + qy * qy + qz * qz
      guard normSquared > 0.5 else { continue }
      let zUp = (qw * qw + qz * qz - qx * qx - qy * qy) / normSquared
      guard abs(zUp) > 0.5,
        let gravity = gravities.min(by: {
          distance($0.time, orientation.time) < distance($1.time, orientation.time)
        }),
        distance(gravity.time, orientation.time) <= UInt64(gravityPairingTolerance),
        let gravityZ = gravity.vector?.z, abs(gravityZ) > 3
      else { continue }
      return gravityZ * zUp > 0 ? .android : .iOS
    }
    return nil
  }
}
