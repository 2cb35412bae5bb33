// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Unit names met in recording headers and column mappings, and their factors to OpenCoreMotion's
/// units (m/s² specific force, rad/s, µT, kPa, s).
enum RecordingUnits {
  /// Splits `"Gyroscope X (deg/s)"` into `("gyroscope x", "deg/s")` (normalized, unit lower-cased).
  static func split(_ name: String) -> (base: String, unit: String?) {
    let normalized = ColumnIndex.normalize(name)
    guard normalized.hasSuffix(")"), let open = normalized.lastIndex(of: "(") else {
      return (normalized, nil)
    }
    let base = normalized[..<open].trimmingCharacters(in: .whitespaces)
    let unit = normalized[
      normalized.index(after: open)..<normalized.index(before: normalized.endIndex)]
    return (base, unit.trimmingCharacters(in: .whitespaces))
  }

  private static func clean(_ unit: String) -> String {
    ColumnIndex.normalize(unit).replacingOccurrences(of: " ", with: "")
      .replacingOccurrences(of: "²", with: "^2")
  }

  /// Factor from an acceleration unit to m/s² (`g` is 9.80665 m/s², same sign).
  static func acceleration(_ unit: String) -> Double? {
    switch clean(unit) {
    case "m/s^2", "m/s2", "ms^-2", "m*s^-2", "mps2": return 1
    case "g": return Units.standardGravity
    case "mg": return Units.standardGravity / 1000
    default: return nil
    }
  }

  /// Factor from an angular-rate unit to rad/s.
  static func angularRate(_ unit: String) -> Double? {
    switch clean(unit) {
    case "rad/s", "rads^-1", "rad*s^-1", "rps": return 1
    case "deg/s", "°/s", "dps", "degs^-1": return Units.radiansPerDegree
    default: return nil
    }
  }

  /// Factor from a magnetic-field unit to µT (`a.u.`, arbitrary units, is taken as is).
  static func magneticField(_ unit: String) -> Double? {
    switch clean(unit) {
    case "µt", "ut", "microtesla": return 1
    case "nt": return 1e-3
    case "mt": return 1e3
    case "t", "tesla": return 1e6
    case "g", "gauss": return Units.microteslaPerGauss
    case "mg", "mgauss": return Units.microteslaPerGauss / 1000
    case "a.u.", "au": return 1
    default: return nil
    }
  }

  /// Factor from a pressure unit to kPa.
  static func pressure(_ unit: String) -> Double? {
    switch clean(unit) {
    case "kpa": return 1
    case "hpa", "mbar": return 0.1
    case "pa": return 1e-3
    case "bar": return 100
    default: return nil
    }
  }

  /// Factor from a time unit to seconds.
  static func time(_ unit: String) -> Double? {
    switch clean(unit) {
    case "s", "sec", "seconds": return 1
    case "ms": return 1e-3
    case "us", "µs": return 1e-6
    case "ns": return 1e-9
    default: return nil
    }
  }
}
