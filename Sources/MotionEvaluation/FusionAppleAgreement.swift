// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionFusion
import MotionMath

/// Agreement of our gravity estimate with Apple's own `CMDeviceMotion.gravity` on iPhone
/// recordings that carry both the inputs and Apple's output (the MotionSense layout: `t`,
/// `ax, ay, az` = gravity + user acceleration in g with Apple's sign, `gx, gy, gz` = rotation rate
/// in rad/s, `apple_gravity_x, apple_gravity_y, apple_gravity_z` in g).
///
/// Apple's filter is not ground truth; the angle between the two gravity directions catches
/// regressions and pocket-motion failures (both filters differ from Apple by degrees while
/// walking).
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
    /// Rows skipped because a value was missing or not finite.
    public var skippedRows: Int
  }

  /// Errors reading a recording.
  public enum Failure: Error, CustomStringConvertible {
    case unreadable(String)
    case missingColumns(String, [String])
    case noSamples(String)
    public var description: String {
      switch self {
      case .unreadable(let path): return "\(path): cannot be read as UTF-8 text"
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
  public static func evaluate(
    path: String, decimation: Int = 1, parameters: AttitudeEstimator.Parameters = .default
  ) throws -> Trial {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
      throw Failure.unreadable(path)
    }
    var lines = text.split(whereSeparator: \.isNewline).makeIterator()
    guard let header = lines.next() else { throw Failure.noSamples(path) }
    let names = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
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

    var times: [Double] = [], specificForce: [SIMD3<Double>] = [], rates: [SIMD3<Double>] = []
    var appleGravity: [SIMD3<Double>] = []
    var skipped = 0
    var values = [Double](repeating: 0, count: columns.count)
    rows: while let line = lines.next() {
      let fields = line.split(separator: ",", omittingEmptySubsequences: false)
      for (k, index) in indices.enumerated() {
        guard index < fields.count, let value = Double(fields[index]), value.isFinite else {
          skipped += 1
          continue rows
        }
        values[k] = value
      }
      times.append(values[0])
      // Apple's acceleration (g, at rest pointing down) to specific force (m/s², up at rest).
      specificForce.append(SIMD3(values[1], values[2], values[3]) * -Units.standardGravity)
      rates.append(SIMD3(values[4], values[5], values[6]))
      appleGravity.append(SIMD3(values[7], values[8], values[9]))
    }
    let factor = Swift.max(1, decimation)
    let windows = times.count / factor
    guard windows > 1 else { throw Failure.noSamples(path) }

    let period = (times[factor * (windows - 1)] - times[0]) / Double(Swift.max(1, windows - 1))
    var estimator = AttitudeEstimator(
      parameters: parameters, samplePeriod: period > 0 ? period : 0.02)
    var angles: [Double] = []
    angles.reserveCapacity(windows)
    for window in 0..<windows {
      let start = window * factor, last = start + factor - 1
      var force = SIMD3<Double>.zero, rate = SIMD3<Double>.zero
      for i in start...last {
        force += specificForce[i]
        rate += rates[i]
      }
      estimator.update(
        timestamp: times[last], gyroscope: rate / Double(factor),
        accelerometer: force / Double(factor), magnetometer: nil)
      let ours = estimator.earthFromSensor6D.conjugate.act(on: SIMD3(0, 0, -1))
      let apple = appleGravity[last]
      let denominator = (ours.lengthSquared * apple.lengthSquared).squareRoot()
      guard denominator > 1e-9 else { continue }
      let cosine = Swift.min(1, Swift.max(-1, (ours * apple).sum() / denominator))
      angles.append(Double.acos(cosine) / Units.radiansPerDegree)
    }
    guard !angles.isEmpty else { throw Failure.noSamples(path) }
    angles.sort()
    let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    return Trial(
      name: name, median: quantile(angles, 0.5), p95: quantile(angles, 0.95), count: angles.count,
      skippedRows: skipped)
  }

  /// The `q` quantile of sorted `values` with linear interpolation (numpy's default).
  static func quantile(_ values: [Double], _ q: Double) -> Double {
    let position = q * Double(values.count - 1)
    let lower = Int(position.rounded(.down))
    let upper = Swift.min(lower + 1, values.count - 1)
    let fraction = position - Double(lower)
    return values[lower] + (values[upper] - values[lower]) * fraction
  }
}
