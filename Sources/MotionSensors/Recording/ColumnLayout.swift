// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Where each quantity of a ``MotionSample`` lives in a CSV table's columns, and how to convert it
/// to OpenCoreMotion's units and signs.
///
/// Every reader that has one row per instant (BROAD, the project's own format, EuRoC, SensorLog, a
/// column mapping) describes its table with a layout and shares one decoder, ``CSVTableStream``.
struct ColumnLayout: Sendable {
  /// A three-axis quantity: three column indices and a per-axis factor to SI units and our sign.
  struct Vector: Sendable {
    var columns: SIMD3<Int>
    var scale: SIMD3<Double> = SIMD3(repeating: 1)
  }

  /// A single-column quantity with a factor and an offset (`value · scale + offset`).
  struct Scalar: Sendable {
    var column: Int
    var scale: Double = 1
    var offset: Double = 0
  }

  /// How the time column is written.
  enum TimeEncoding: Sendable {
    /// A decimal number; seconds = value · scale.
    case decimal(scale: Double)
    /// An integer count of `1/unitsPerSecond` seconds (epoch nanoseconds, device microseconds),
    /// parsed exactly as `Int64` before conversion. Decimal text is accepted as a fallback.
    case integer(unitsPerSecond: Int64)
  }

  /// A quaternion in four columns, scalar first, converted as `earthRotation * q`.
  struct Attitude: Sendable {
    var w: Int, x: Int, y: Int, z: Int
    /// Rotation applied on the left: takes the file's earth frame to NWU.
    var earthRotation: Quaternion = .identity
    /// Whether the file stores `sensorFromEarth` (conjugated before conversion).
    var isInverse = false
  }

  /// The column that holds the timestamp.
  var time: Int
  var timeEncoding: TimeEncoding = .decimal(scale: 1)
  var accelerometer: Vector?
  var gyroscope: Vector?
  var magnetometer: Vector?
  var pressure: Scalar?
  var temperature: Scalar?

  // Ground truth (each optional).
  var attitude: Attitude?
  var angularVelocity: Vector?
  var gyroscopeBias: Vector?
  var gravity: Vector?
  var linearAcceleration: Vector?
  var position: Vector?
  var movement: Int?

  /// Whether a row whose time cell is empty or NaN is left out silently (sensor groups that have
  /// not started yet in SensorLog, NaN padding in phyphox) instead of being an error.
  var missingTimeSkipsRow = false

  /// The column names, for error messages.
  var columnNames: [String]

  init(time: Int, columnNames: [String]) {
    self.time = time
    self.columnNames = columnNames
  }

  /// The sensors the layout has columns for.
  var sensors: SensorSet {
    SensorSet(
      accelerometer: accelerometer != nil, gyroscope: gyroscope != nil,
      magnetometer: magnetometer != nil,
      pressure: pressure != nil, temperature: temperature != nil)
  }

  /// Whether any ground-truth column is present.
  var hasGroundTruth: Bool {
    attitude != nil || angularVelocity != nil || gyroscopeBias != nil || gravity != nil
      || linearAcceleration != nil || position != nil || movement != nil
  }

  /// The largest column index used, so that short rows are caught before indexing.
  var highestColumn: Int {
    var m = time
    for v in [
      accelerometer, gyroscope, magnetometer, angularVelocity, gyroscopeBias, gravity,
      linearAcceleration, position,
    ] {
      if let v { m = Swift.max(m, v.columns.max()) }
    }
    for s in [pressure, temperature] { if let s { m = Swift.max(m, s.column) } }
    if let a = attitude { m = Swift.max(m, a.w, a.x, a.y, a.z) }
    if let movement { m = Swift.max(m, movement) }
    return m
  }
}
