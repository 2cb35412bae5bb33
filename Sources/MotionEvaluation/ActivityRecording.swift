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
    var times: [Double] = []
    var acceleration: [SIMD3<Double>] = []
    let summary = try read(url) {
      times.append($0)
      acceleration.append($1)
    }
    return ActivityRecording(
      times: times, acceleration: acceleration, units: summary.units,
      skippedRows: summary.skippedRows)
  }

  /// What ``read(_:body:)`` found in a file.
  public struct Summary: Sendable {
    /// The units detected.
    public var units: Units
    /// Accelerometer samples handed over.
    public var sampleCount: Int
    /// Rows left out (non-finite values, time going back).
    public var skippedRows: Int
  }

  /// Reads a file as ``load(_:)`` does, handing over each sample (time s, acceleration in g with
  /// Apple's sign) without keeping the file: only the first samples are held, until their units
  /// are known (see `AccelerationUnitProbe`).
  ///
  /// - Throws: `RecordingError` for a missing or unreadable file; what `body` throws.
  @discardableResult
  public static func read(
    _ url: URL, body: (Double, SIMD3<Double>) throws -> Void
  ) throws -> Summary {
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
    // Other formats are converted to specific force by their readers; plain columns are told
    // apart by their first samples' median magnitude (about 1: g with Apple's sign).
    var detector = PlainTableUnitDetector(units: isPlainColumns ? nil : .metresPerSecondSquared)
    var count = 0
    func deliver(_ time: Double, _ raw: SIMD3<Double>, in units: Units) throws {
      try body(time, units == .appleG ? raw : -raw / 9.80665)
    }
    while let sample = try reader.next() {
      guard let a = sample.accelerometer else { continue }
      count += 1
      try detector.add(time: sample.timestamp, value: a, deliver: deliver)
    }
    let decided = try detector.finish(deliver: deliver)
    return Summary(units: decided, sampleCount: count, skippedRows: reader.skippedRowCount)
  }
}

extension ActivityRecording.Units {
  /// The units of a plain `t,ax,ay,az` table, told from the magnitudes of its first samples by
  /// `AccelerationUnitProbe`: g is taken with Apple's sign, as iPhone loggers write it; m/s² is
  /// specific force. No measurement at all: m/s².
  package static func detected(fromFirst samples: [SIMD3<Double>]) -> Self {
    AccelerationUnitProbe.isInG(magnitudes: samples.map { ($0 * $0).sum().squareRoot() }) == true
      ? .appleG : .metresPerSecondSquared
  }
}
