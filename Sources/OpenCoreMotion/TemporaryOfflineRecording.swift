// SPDX-License-Identifier: Apache-2.0

import MotionFusion
import MotionMath
import MotionSensors

/// A recording gathered for ``DeviceMotionReplay/runOffline(_:frame:declination:storage:body:)``
/// in an unnamed temporary file instead of memory: 56 bytes per sample on disk (the same single
/// precision as `OfflineAttitudeRecording`), one 1 MiB block in memory.
///
/// Not `Sendable`: one replay owns it.
final class TemporaryOfflineRecording: OfflineAttitudeInputs {
  let hasMagnetometer: Bool
  private let samples: TemporaryRecordFile<OfflineAttitudeSample>
  private var lastTimestamp = -Double.infinity
  /// Whether a sample had a reading stamped before its timestamp (a sensor on its own clock).
  private(set) var hasSensorAges = false

  init(hasMagnetometer: Bool, blockByteCount: Int) throws {
    self.hasMagnetometer = hasMagnetometer
    samples = try TemporaryRecordFile(
      prefix: "opencoremotion-offline-inputs", blockByteCount: blockByteCount)
  }

  var count: Int { samples.count }

  /// The first I/O error, if any.
  var failure: TemporaryRecordFileError? { samples.failure }

  /// Appends one sample, refusing the same ones `OfflineAttitudeRecording.append` refuses.
  @discardableResult
  func append(
    timestamp: Double, gyroscope: SIMD3<Double>, accelerometer: SIMD3<Double>,
    magnetometer: SIMD3<Double>?, accelerometerAge: Double = 0, magnetometerAge: Double = 0
  ) -> Bool {
    guard
      let sample = OfflineAttitudeSample(
        timestamp: timestamp, gyroscope: gyroscope, accelerometer: accelerometer,
        magnetometer: magnetometer, hasMagnetometer: hasMagnetometer, after: lastTimestamp,
        accelerometerAge: accelerometerAge, magnetometerAge: magnetometerAge)
    else { return false }
    samples.append(sample)
    lastTimestamp = timestamp
    if sample.hasAge { hasSensorAges = true }
    return true
  }

  func timestamp(at index: Int) -> Double { samples[index].timestamp }
  func gyroscope(at index: Int) -> SIMD3<Double> { samples[index].gyroscope.doublePrecision }
  func accelerometer(at index: Int) -> SIMD3<Double> {
    samples[index].accelerometer.doublePrecision
  }
  func magnetometer(at index: Int) -> SIMD3<Double>? {
    hasMagnetometer ? samples[index].magnetometer.doublePrecision : nil
  }
  func accelerometerAge(at index: Int) -> Double { Double(samples[index].accelerometerAge) }
  func magnetometerAge(at index: Int) -> Double {
    hasMagnetometer ? Double(samples[index].magnetometerAge) : 0
  }
}

extension TemporaryRecordFile: OfflineAttitudeStore where Record == SinglePrecisionQuaternion {}
