// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

/// An accelerometer recording for activity classification: times (s) and acceleration in g with
/// Apple's sign (face up at rest reads (0, 0, −1)).
///
/// Reads the shared activity layout directly (a CSV with columns `t, ax, ay, az`, extra columns
/// ignored) and tells the two unit conventions apart by the median magnitude of the first samples:
/// about 1 means g with Apple's sign (MotionSense), about 9.8 means m/s² with Android's sign
/// (specific force, QROWD). Any other recording `RecordingReader` recognises is read as such
/// (its readers already convert to specific force in m/s²).
public struct ActivityRecording: Sendable {
  /// How the file's acceleration was interpreted.
  public enum Units: String, Sendable, Codable {
    /// g with Apple's sign.
    case appleG = "g (Apple sign)"
    /// Specific force in m/s² (Android's sign).
    case metresPerSecondSquared = "m/s^2 (specific force)"
  }

  /// Sample times, s.
  public var times: [Double]
  /// Acceleration in g, Apple's sign.
  public var acceleration: [SIMD3<Double>]
  /// The units detected in the file.
  public var units: Units
  /// Rows left out because they held non-finite values or went back in time.
  public var skippedRows: Int

  public init(times: [Double], acceleration: [SIMD3<Double>], units: Units, skippedRows: Int = 0) {
    self.times = times
    self.acceleration = acceleration
    self.units = units
    self.skippedRows = skippedRows
  }

  /// Loads a file.
  ///
  /// - Throws: `RecordingError` for a missing or unreadable file.
  public static func load(_ url: URL) throws -> ActivityRecording {
    let options = RecordingReader.Options(
      invalidRows: .skip, columnMapping: try ColumnMapping(parsing: "t=t,ax=ax,ay=ay,az=az"))
    let stream: RecordingStream
    var isPlainColumns = true
    do {
      stream = try RecordingReader.open(url, format: .columns, options: options)
    } catch let error as RecordingError where error.kind != .fileNotFound {
      stream = try RecordingReader.open(url, options: RecordingReader.Options(invalidRows: .skip))
      isPlainColumns = false
    }
    var reader = stream
    var times: [Double] = []
    var raw: [SIMD3<Double>] = []
    while let sample = try reader.next() {
      guard let a = sample.accelerometer else { continue }
      times.append(sample.timestamp)
      raw.append(a)
    }
    var units = Units.metresPerSecondSquared
    if isPlainColumns {
      let head = raw.prefix(500).map { ($0 * $0).sum().squareRoot() }.sorted()
      if let median = head.isEmpty ? nil : head[head.count / 2], median < 4 { units = .appleG }
    }
    let acceleration = units == .appleG ? raw : raw.map { -$0 / 9.80665 }
    return ActivityRecording(
      times: times, acceleration: acceleration, units: units, skippedRows: reader.skippedRowCount)
  }
}
