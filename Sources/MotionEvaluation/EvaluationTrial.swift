// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One recording with ground truth, held in flat arrays for fast evaluation runs.
///
/// Reference attitudes are sensor to OpenCoreMotion's NWU earth frame (BROAD's ENU reference is
/// rotated once on loading); `nil` where the reference was missing (occluded markers).
public struct EvaluationTrial: Sendable {
  /// The trial's name (file name without extension).
  public var name: String
  /// Sample times, s.
  public var timestamps: [Double]
  /// Raw gyroscope, rad/s.
  public var gyroscope: [SIMD3<Double>]
  /// Specific force, m/s².
  public var accelerometer: [SIMD3<Double>]
  /// Raw magnetometer, µT.
  public var magnetometer: [SIMD3<Double>]
  /// Ground truth, sensor to NWU earth.
  public var reference: [Quaternion?]
  /// Whether each sample belongs to the evaluated movement phase.
  public var isMovementPhase: [Bool]

  /// Creates a trial from its columns (all arrays of equal length).
  public init(
    name: String, timestamps: [Double], gyroscope: [SIMD3<Double>], accelerometer: [SIMD3<Double>],
    magnetometer: [SIMD3<Double>], reference: [Quaternion?], isMovementPhase: [Bool]
  ) {
    self.name = name
    self.timestamps = timestamps
    self.gyroscope = gyroscope
    self.accelerometer = accelerometer
    self.magnetometer = magnetometer
    self.reference = reference
    self.isMovementPhase = isMovementPhase
  }

  /// Number of samples.
  public var count: Int { timestamps.count }

  /// The median sample spacing, s (the nominal sample period).
  public var samplePeriod: Double {
    guard count > 2 else { return 0.01 }
    var steps: [Double] = []
    steps.reserveCapacity(Swift.min(count - 1, 1000))
    for i in 1..<Swift.min(count, 1001) { steps.append(timestamps[i] - timestamps[i - 1]) }
    steps.sort()
    return steps[steps.count / 2]
  }

  /// Errors reading a trial file.
  public enum LoadError: Error, CustomStringConvertible {
    case unreadable(String)
    case missingColumns(String, [String])
    public var description: String {
      switch self {
      case .unreadable(let path): return "cannot read \(path)"
      case .missingColumns(let path, let names):
        return "\(path): missing columns \(names.joined(separator: ", "))"
      }
    }
  }

  /// Reads a BROAD-format CSV file (columns `t, gyr_*, acc_*, mag_*, ref_q*, movement`; the
  /// reference in ENU is converted to NWU).
  public static func loadBROAD(path: String) throws -> EvaluationTrial {
    guard var data = FileManager.default.contents(atPath: path) else {
      throw LoadError.unreadable(path)
    }
    // strtod needs a terminator after the last field.
    data.append(0)
    let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    return try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> EvaluationTrial in
      let bytes = raw.bindMemory(to: CChar.self)
      guard let base = bytes.baseAddress else { throw LoadError.unreadable(path) }
      let end = base + bytes.count - 1
      // Header.
      var p = base
      while p < end && p.pointee != 10 { p += 1 }
      let header = String(
        decoding: UnsafeRawBufferPointer(start: base, count: p - base), as: UTF8.self
      ).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map(String.init)
      let wanted = [
        "t", "gyr_x", "gyr_y", "gyr_z", "acc_x", "acc_y", "acc_z", "mag_x", "mag_y", "mag_z",
        "ref_qw", "ref_qx", "ref_qy", "ref_qz", "movement",
      ]
      var columnOf = [Int](repeating: -1, count: wanted.count)
      for (i, w) in wanted.enumerated() { columnOf[i] = header.firstIndex(of: w) ?? -1 }
      let missing = zip(wanted, columnOf).filter { $0.1 < 0 }.map { $0.0 }
      guard missing.isEmpty else { throw LoadError.missingColumns(path, missing) }
      var fieldOf = [Int](repeating: -1, count: header.count)
      for (i, c) in columnOf.enumerated() { fieldOf[c] = i }

      let estimate = bytes.count / 140
      var t: [Double] = [], g: [SIMD3<Double>] = [], a: [SIMD3<Double>] = []
      var m: [SIMD3<Double>] = [], r: [Quaternion?] = [], mv: [Bool] = []
      t.reserveCapacity(estimate); g.reserveCapacity(estimate); a.reserveCapacity(estimate)
      m.reserveCapacity(estimate); r.reserveCapacity(estimate); mv.reserveCapacity(estimate)
      let enuToNwu = EarthFrame.eastNorthUp.rotation(to: .northWestUp)
      var values = [Double](repeating: .nan, count: wanted.count)
      p += 1
      while p < end {
        // One line: parse every field with strtod (handles "nan").
        var field = 0
        var complete = false
        while p < end {
          var next: UnsafeMutablePointer<CChar>? = nil
          let v = strtod(p, &next)
          guard let n = next, n > p else { break }
          if field < fieldOf.count, fieldOf[field] >= 0 { values[fieldOf[field]] = v }
          field += 1
          p = UnsafePointer(n)
          if p < end && p.pointee == 44 {  // ','
            p += 1
            continue
          }
          complete = true
          break
        }
        while p < end && p.pointee != 10 { p += 1 }
        p += 1
        guard complete, field >= header.count else { continue }
        t.append(values[0])
        g.append(SIMD3(values[1], values[2], values[3]))
        a.append(SIMD3(values[4], values[5], values[6]))
        m.append(SIMD3(values[7], values[8], values[9]))
        let q = Quaternion(w: values[10], x: values[11], y: values[12], z: values[13])
        r.append(q.isFinite && q.lengthSquared > 0.5 ? (enuToNwu * q).normalized : nil)
        mv.append(values[14] > 0.5)
      }
      return EvaluationTrial(
        name: name, timestamps: t, gyroscope: g, accelerometer: a, magnetometer: m, reference: r,
        isMovementPhase: mv)
    }
  }
}
