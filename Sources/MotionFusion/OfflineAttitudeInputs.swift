// SPDX-License-Identifier: Apache-2.0

/// A recording's samples as ``OfflineAttitudeEstimator`` reads them: by index, forward, backward
/// and forward again.
///
/// Every index in `0..<count` has a timestamp (s, increasing), a raw gyroscope reading (rad/s) and
/// a specific force (m/s²) in the sensor frame; the magnetometer (raw, µT) is there for every
/// index when ``hasMagnetometer`` is true, and `nil` for every index otherwise.
/// ``OfflineAttitudeRecording`` holds them compactly; arrays are accepted by
/// ``OfflineAttitudeEstimator/estimate(timestamps:gyroscope:accelerometer:magnetometer:samplePeriod:parameters:convergenceTime:)``.
public protocol OfflineAttitudeInputs {
  /// The number of samples.
  var count: Int { get }
  /// Whether the samples include the magnetometer (a 9D estimate) or not (6D).
  var hasMagnetometer: Bool { get }
  /// The time of sample `index`, s.
  func timestamp(at index: Int) -> Double
  /// The raw gyroscope reading of sample `index`, rad/s.
  func gyroscope(at index: Int) -> SIMD3<Double>
  /// The specific force of sample `index`, m/s².
  func accelerometer(at index: Int) -> SIMD3<Double>
  /// The raw magnetometer reading of sample `index`, µT; `nil` without a magnetometer.
  func magnetometer(at index: Int) -> SIMD3<Double>?
  /// How long before `timestamp(at: index)` the accelerometer reading of sample `index` was
  /// stamped, s: 0 when the sensors tick together; for an accelerometer on its own clock, the
  /// age of its latest sample (held with each gyroscope sample). Default: 0.
  func accelerometerAge(at index: Int) -> Double
  /// The same for the magnetometer reading. Default: 0.
  func magnetometerAge(at index: Int) -> Double
  /// Whether any age is not 0 (a sensor on its own clock). When false the estimator pairs every
  /// reading with its gyroscope sample, as for synchronous arrays. Default: false.
  var hasSensorAges: Bool { get }
}

extension OfflineAttitudeInputs {
  /// The default: no sensor on its own clock, so every reading is paired with its gyroscope sample.
  public var hasSensorAges: Bool { false }
  /// The default: the accelerometer reading was taken with its gyroscope sample (age 0 s).
  public func accelerometerAge(at index: Int) -> Double { 0 }
  /// The default: the magnetometer reading was taken with its gyroscope sample (age 0 s).
  public func magnetometerAge(at index: Int) -> Double { 0 }
}

/// Arrays as offline inputs (the array form of the estimator's API).
struct OfflineAttitudeInputArrays: OfflineAttitudeInputs {
  var timestamps: [Double]
  var gyroscopes: [SIMD3<Double>]
  var accelerometers: [SIMD3<Double>]
  var magnetometers: [SIMD3<Double>]?

  var count: Int { timestamps.count }
  var hasMagnetometer: Bool { magnetometers != nil }
  func timestamp(at index: Int) -> Double { timestamps[index] }
  func gyroscope(at index: Int) -> SIMD3<Double> { gyroscopes[index] }
  func accelerometer(at index: Int) -> SIMD3<Double> { accelerometers[index] }
  func magnetometer(at index: Int) -> SIMD3<Double>? { magnetometers?[index] }
}
