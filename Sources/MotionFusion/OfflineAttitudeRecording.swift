// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// A recording gathered for ``OfflineAttitudeEstimator``, held compactly: the timestamp in
/// double precision and each reading and the vector sensors' ages (see
/// ``OfflineAttitudeInputs/accelerometerAge(at:)``) in single precision, 52 bytes per nine-axis
/// sample and 36 per six-axis one (arrays of `SIMD3<Double>` take 104 and 72 without the ages).
///
/// Offline estimation must hold the whole recording (it runs backward over it), so in memory this
/// is what bounds it: an hour at 100 Hz is 16 MB here. OpenCoreMotion's offline replay can keep
/// the same samples in a temporary file instead, for recordings longer than memory allows.
/// Single precision keeps 24 significant bits, more than any MEMS sensor resolves; a reading
/// beyond `Float`'s range (about 3.4e38) is refused by
/// ``append(timestamp:gyroscope:accelerometer:magnetometer:accelerometerAge:magnetometerAge:)``.
public struct OfflineAttitudeRecording: OfflineAttitudeInputs, Sendable {
  /// Whether every sample has a magnetometer reading.
  public let hasMagnetometer: Bool
  private var timestamps: [Double] = []
  private var gyroscopes: [SinglePrecisionVector3] = []
  private var accelerometers: [SinglePrecisionVector3] = []
  private var magnetometers: [SinglePrecisionVector3] = []
  private var accelerometerAges: [Float] = []
  private var magnetometerAges: [Float] = []
  /// Whether a sample had a reading stamped before its timestamp (a sensor on its own clock).
  public private(set) var hasSensorAges = false

  /// An empty recording, with a magnetometer reading in every sample or in none.
  public init(hasMagnetometer: Bool) {
    self.hasMagnetometer = hasMagnetometer
  }

  /// The number of samples.
  public var count: Int { timestamps.count }

  /// Appends one sample: `timestamp` in s (later than the last one), the raw gyroscope in rad/s,
  /// the specific force in m/s² and, when the recording has one, the raw magnetometer in µT; for
  /// sensors on their own clocks, how long before `timestamp` the accelerometer and magnetometer
  /// readings were stamped (s).
  ///
  /// - Returns: `false`, leaving the recording as it was, when the timestamp is not finite or does
  ///   not move forward, a reading is not finite in single precision, or the magnetometer is
  ///   missing (or given to a recording without one).
  @discardableResult
  public mutating func append(
    timestamp: Double, gyroscope: SIMD3<Double>, accelerometer: SIMD3<Double>,
    magnetometer: SIMD3<Double>?, accelerometerAge: Double = 0, magnetometerAge: Double = 0
  ) -> Bool {
    guard
      let sample = OfflineAttitudeSample(
        timestamp: timestamp, gyroscope: gyroscope, accelerometer: accelerometer,
        magnetometer: magnetometer, hasMagnetometer: hasMagnetometer,
        after: timestamps.last ?? -.infinity, accelerometerAge: accelerometerAge,
        magnetometerAge: magnetometerAge)
    else { return false }
    timestamps.append(sample.timestamp)
    gyroscopes.append(sample.gyroscope)
    accelerometers.append(sample.accelerometer)
    accelerometerAges.append(sample.accelerometerAge)
    if sample.hasAge { hasSensorAges = true }
    if hasMagnetometer {
      magnetometers.append(sample.magnetometer)
      magnetometerAges.append(sample.magnetometerAge)
    }
    return true
  }

  public func timestamp(at index: Int) -> Double { timestamps[index] }
  public func gyroscope(at index: Int) -> SIMD3<Double> { gyroscopes[index].doublePrecision }
  public func accelerometer(at index: Int) -> SIMD3<Double> {
    accelerometers[index].doublePrecision
  }
  public func magnetometer(at index: Int) -> SIMD3<Double>? {
    hasMagnetometer ? magnetometers[index].doublePrecision : nil
  }
  public func accelerometerAge(at index: Int) -> Double { Double(accelerometerAges[index]) }
  public func magnetometerAge(at index: Int) -> Double {
    hasMagnetometer ? Double(magnetometerAges[index]) : 0
  }
}
