// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionFusion
import MotionMath
import MotionSensors

/// Agreement of our gravity estimate with Apple's own `CMDeviceMotion.gravity` on iPhone
/// recordings that carry both the inputs and Apple's output (the MotionSense layout: `t`,
/// `ax, ay, az` = gravity + user acceleration in g with Apple's sign, `gx, gy, gz` = rotation rate
/// in rad/s, `apple_gravity_x, apple_gravity_y, apple_gravity_z` in g).
///
/// Apple's filter is not ground truth; the angle between the two gravity directions catches
/// regressions and pocket-motion failures (both filters differ from Apple by degrees while
/// walking). Each trial therefore also compares ours and Apple's gravity with the direction the
/// recording itself implies after the fact (``CentredGravityReference``: the mean specific force
/// over 5 s centred on each sample, in that sample's frame through the gyroscope).
public enum FusionAppleAgreement {
  /// One recording's angles between our gravity and Apple's, degrees, over all its samples.
  public struct Trial: Sendable, Codable, Equatable {
    /// The file name without extension.
    public var name: String
    /// Median angle, degrees.
    public var median: Double
    /// 95th percentile of the angle, degrees.
    public var p95: Double
    /// Samples compared.
    public var count: Int
    /// Rows skipped because a value was missing, not a number or not finite.
    public var skippedRows: Int
    /// Median angle between our gravity and the recording's own centred reference
    /// (``CentredGravityReference``, 5 s window), degrees.
    public var referenceMedian: Double?
    /// 95th percentile of that angle, degrees.
    public var referenceP95: Double?
    /// Median angle between Apple's gravity and the same reference, degrees.
    public var appleReferenceMedian: Double?
    /// 95th percentile of that angle, degrees. (The four reference figures are `nil` for a
    /// recording shorter than the reference's window.)
    public var appleReferenceP95: Double?
    /// Of a replayed recording (``GravityAgreementMatcher``), Apple's instants that had no
    /// update of ours within the matcher's tolerance (or a value that could not be compared);
    /// `nil` for the MotionSense layout, where every row is compared.
    public var unmatchedInstants: Int?
  }

  /// Errors reading a recording.
  public enum Failure: Error, CustomStringConvertible {
    case unreadable(String)
    case missingColumns(String, [String])
    case noSamples(String)
    public var description: String {
      switch self {
      case .unreadable(let path): return "\(path): cannot be read"
      case .missingColumns(let path, let names):
        return "\(path): missing column(s) \(names.joined(separator: ", "))"
      case .noSamples(let path): return "\(path): no complete rows"
      }
    }
  }

  /// The columns read, in order: time, acceleration (g), rate (rad/s), Apple's gravity (g).
  static let columns = [
    "t", "ax", "ay", "az", "gx", "gy", "gz", "apple_gravity_x", "apple_gravity_y",
    "apple_gravity_z",
  ]

  /// Compares our real-time 6D gravity with Apple's on the recording at `path`, decimated by
  /// `decimation` first (inputs averaged over each window, Apple's gravity from its last row).
  ///
  /// The file is read twice as a stream, never held: the estimator's coefficients depend on the
  /// mean sample period, which needs the number of complete windows and the time of the last one,
  /// so a first pass counts the rows and a second runs the filter window by window as the rows
  /// arrive. Memory holds one window of the file (1 MiB), one averaging window's sums and one
  /// angle per window (the quantiles are exact, so the angles are kept until they are sorted).
  public static func evaluate(
    path: String, decimation: Int = 1, parameters: AttitudeEstimator.Parameters = .default
  ) throws -> Trial {
    try evaluate(path: path, decimation: decimation) { _ in parameters }
  }

  /// Compares as ``evaluate(path:decimation:parameters:)`` with the estimator told how Core
  /// Motion's device-motion outputs are sampled (``deviceMotionParameters(rowPeriod:)``, from
  /// the recording's own mean row period), with `overrides` (`NAME=VALUE`, as
  /// ``FusionEvaluation/parameters(overriding:with:)`` takes them) applied on top.
  public static func evaluateDeviceMotion(
    path: String, decimation: Int = 1, overrides: [String] = []
  ) throws -> Trial {
    try evaluate(path: path, decimation: decimation) { rowPeriod in
      try FusionEvaluation.parameters(
        overriding: deviceMotionParameters(rowPeriod: rowPeriod), with: overrides)
    }
  }

  /// The comparison itself; `makeParameters` gets the recording's mean row period (s).
  static func evaluate(
    path: String, decimation: Int,
    makeParameters: (Double) throws -> AttitudeEstimator.Parameters
  ) throws -> Trial {
    let rows = try Rows(path: path)
    let factor = Swift.max(1, decimation)

    // First pass: which rows count, how many complete windows they make and their time span.
    var accepted = 0
    var firstTime = 0.0
    var lastTime = 0.0
    var windowStartTime = 0.0
    var lastWindowStartTime = 0.0
    let skipped = try rows.forEach { values in
      let time = values[0]
      if accepted == 0 { firstTime = time }
      lastTime = time
      if accepted % factor == 0 { windowStartTime = time }
      if accepted % factor == factor - 1 { lastWindowStartTime = windowStartTime }
      accepted += 1
      return true
    }
    let windows = accepted / factor
    guard windows > 1 else { throw Failure.noSamples(path) }

    let period = (lastWindowStartTime - firstTime) / Double(Swift.max(1, windows - 1))
    // The reference runs on every row (the recording's own rate), whatever the decimation.
    let rowPeriod = (lastTime - firstTime) / Double(Swift.max(1, accepted - 1))
    let referenceInterval = rowPeriod > 0 ? rowPeriod : 0.02
    var estimator = AttitudeEstimator(
      parameters: try makeParameters(referenceInterval), samplePeriod: period > 0 ? period : 0.02)
    var angles: [Double] = []
    angles.reserveCapacity(windows)
    var reference = CentredGravityReference(
      windowDuration: referenceWindow, samplePeriod: referenceInterval)
    var oursToReference: [Double] = []
    var appleToReference: [Double] = []
    oursToReference.reserveCapacity(windows)
    appleToReference.reserveCapacity(windows)

    // Second pass: each complete window, averaged, through the filter; the partial window at the
    // end is left out, as before.
    var inWindow = 0
    var windowsDone = 0
    var force = SIMD3<Double>.zero
    var rate = SIMD3<Double>.zero
    var comparison: CentredGravityReference.Comparison?
    _ = try rows.forEach { values in
      // Apple's acceleration (g, at rest pointing down) to specific force (m/s², up at rest).
      let rowForce = SIMD3(values[1], values[2], values[3]) * -Units.standardGravity
      let rowRate = SIMD3(values[4], values[5], values[6])
      force += rowForce
      rate += rowRate
      inWindow += 1
      guard inWindow == factor else {
        comparison = reference.append(
          rate: rowRate, interval: referenceInterval, specificForce: rowForce, estimates: nil)
        if let comparison {
          oursToReference.append(comparison.first)
          appleToReference.append(comparison.second)
        }
        return true
      }
      estimator.update(
        timestamp: values[0], gyroscope: rate / Double(factor),
        accelerometer: force / Double(factor), magnetometer: nil)
      let ours = estimator.earthFromSensor6D.conjugate.act(on: SIMD3(0, 0, -1))
      let apple = SIMD3(values[7], values[8], values[9])
      // The window's estimate describes its last row's instant.
      comparison = reference.append(
        rate: rowRate, interval: referenceInterval, specificForce: rowForce,
        estimates: (ours, apple))
      if let comparison {
        oursToReference.append(comparison.first)
        appleToReference.append(comparison.second)
      }
      if let angle = CentredGravityReference.angle(ours, apple) { angles.append(angle) }
      inWindow = 0
      force = .zero
      rate = .zero
      windowsDone += 1
      // The rest is the partial window (or rows the first pass did not see, if the file grew).
      return windowsDone < windows
    }
    guard !angles.isEmpty else { throw Failure.noSamples(path) }
    angles.sort()
    oursToReference.sort()
    appleToReference.sort()
    let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    return Trial(
      name: name, median: quantile(angles, 0.5), p95: quantile(angles, 0.95), count: angles.count,
      skippedRows: skipped, referenceMedian: quantileIfAny(oursToReference, 0.5),
      referenceP95: quantileIfAny(oursToReference, 0.95),
      appleReferenceMedian: quantileIfAny(appleToReference, 0.5),
      appleReferenceP95: quantileIfAny(appleToReference, 0.95))
  }

  /// The estimator's default parameters told how this layout's samples were taken: Core
  /// Motion's device-motion outputs (`rotationRate`, `gravity + userAcceleration`) are instants,
  /// computed together for one timestamp, `rowPeriod` seconds apart.
  ///
  /// The estimator integrates each rate sample over the interval before it, right for a rate
  /// that is the mean over that interval (a raw gyroscope's output filter) but not for an
  /// instant: the rotation from one instant to the next is about the mean of the two instants'
  /// rates, not the later one's, and the attitude runs half a row period ahead of its
  /// timestamp. So the outputs are turned back by that
  /// (``AttitudeEstimator/Parameters/gyroscopeDelay`` = −`rowPeriod`/2, where a raw MEMS
  /// gyroscope's filter delay is assumed otherwise), and each acceleration sample, an instant
  /// at its timestamp, is compared with the attitude half an interval before the attitude's own
  /// instant (``AttitudeEstimator/Parameters/sampleAveragingLag`` 0.5, the default). Averaged over
  /// k rows (decimation), both still hold: the mean of k instants' rates runs half a *row*
  /// period ahead as well, and the mean acceleration describes the middle of the k rows, half
  /// the decimated interval before the attitude.
  ///
  /// Measured on MotionSense against the recordings' own centred reference (see
  /// `Benchmarks/fusion-comparison/README.md`): the best delay at 50 Hz and at 17 Hz is this one,
  /// −10 ms, not the decimated interval's half (−30 ms at 17 Hz).
  public static func deviceMotionParameters(rowPeriod: Double) -> AttitudeEstimator.Parameters {
    var parameters = AttitudeEstimator.Parameters.deviceMotionInstants
    let period = rowPeriod.isFinite && rowPeriod > 0 ? Swift.min(rowPeriod, 1) : 0.02
    // Rows averaged down still lead by half a *row*, not by half the decimated interval that
    // the preset's share would give: the delay is fixed in seconds instead.
    parameters.gyroscopeDelayIntervals = 0
    parameters.gyroscopeDelay = -period / 2
    return parameters
  }

  /// Length of the centred reference's window, s: long enough that a walker's velocity changes
  /// little against it (steps average out), short enough that the gyroscope carries its samples
  /// into one frame with negligible drift.
  static let referenceWindow = 5.0

  /// The rows of one recording, read through MotionSensors' streaming CSV reader (a bounded
  /// window of the file, refilled as the rows go by): header names trimmed of spaces, and a row
  /// skipped when one of ``columns`` is missing, empty, not a number or not finite.
  private struct Rows {
    private let path: String
    /// The file's first window, shared by both passes (each cursor copies it before reading on).
    private let bytes: CSVBytes
    /// Where each of ``FusionAppleAgreement/columns`` is in a row.
    private let indices: [Int]

    /// Opens `path` and reads its header.
    ///
    /// - Throws: ``Failure/unreadable(_:)`` when the file cannot be read, ``Failure/noSamples(_:)``
    ///   when it has no line, ``Failure/missingColumns(_:_:)`` when the header lacks a column.
    init(path: String) throws {
      self.path = path
      let bytes: CSVBytes
      do {
        bytes = try CSVBytes(contentsOf: URL(fileURLWithPath: path))
      } catch {
        throw Failure.unreadable(path)
      }
      self.bytes = bytes
      var cursor = CSVCursor(bytes)
      var fields: [CSVField] = []
      guard try Self.nextRow(&cursor, into: &fields, path: path) else {
        throw Failure.noSamples(path)
      }
      let names = fields.map { bytes.string($0).trimmingCharacters(in: .whitespaces) }
      var indices: [Int] = []
      var missing: [String] = []
      for column in columns {
        if let index = names.firstIndex(of: column) {
          indices.append(index)
        } else {
          missing.append(column)
        }
      }
      guard missing.isEmpty else { throw Failure.missingColumns(path, missing) }
      self.indices = indices
    }

    /// Hands the values of each usable data row (in the order of
    /// ``FusionAppleAgreement/columns``) to `body` until it returns `false` or the file ends;
    /// returns the rows skipped. Each call reads the file from its start; the array is reused
    /// from row to row.
    func forEach(_ body: ([Double]) throws -> Bool) throws -> Int {
      var cursor = CSVCursor(bytes)
      var fields: [CSVField] = []
      _ = try Self.nextRow(&cursor, into: &fields, path: path)  // the header
      var skipped = 0
      var values = [Double](repeating: 0, count: columns.count)
      rows: while try Self.nextRow(&cursor, into: &fields, path: path) {
        for (k, index) in indices.enumerated() {
          guard index < fields.count,
            let value = try? cursor.bytes.double(fields[index]) ?? nil, value.isFinite
          else {
            skipped += 1
            continue rows
          }
          values[k] = value
        }
        guard try body(values) else { break }
      }
      return skipped
    }

    /// The next row; a read error (or a line longer than the reader holds) is
    /// ``Failure/unreadable(_:)``.
    private static func nextRow(
      _ cursor: inout CSVCursor, into fields: inout [CSVField], path: String
    ) throws -> Bool {
      do {
        return try cursor.nextRow(into: &fields)
      } catch {
        throw Failure.unreadable(path)
      }
    }
  }

  /// The `q` quantile of sorted `values`, or `nil` when there are none.
  static func quantileIfAny(_ values: [Double], _ q: Double) -> Double? {
    values.isEmpty ? nil : quantile(values, q)
  }

  /// The `q` quantile of sorted, non-empty `values` with linear interpolation (numpy's default).
  static func quantile(_ values: [Double], _ q: Double) -> Double {
    let position = q * Double(values.count - 1)
    let lower = Int(position.rounded(.down))
    let upper = Swift.min(lower + 1, values.count - 1)
    let fraction = position - Double(lower)
    return values[lower] + (values[upper] - values[lower]) * fraction
  }
}
