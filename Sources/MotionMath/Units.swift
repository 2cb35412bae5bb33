// SPDX-License-Identifier: Apache-2.0

/// Physical constants and unit conversions used at module boundaries.
public enum Units {
  /// Standard gravity in m/s²: the size of Core Motion's `g` (ISO 80000-3).
  public static let standardGravity = 9.80665

  /// Degrees per radian.
  public static let degreesPerRadian = 180 / Double.pi

  /// Radians per degree.
  public static let radiansPerDegree = Double.pi / 180

  /// Microtesla per gauss (the kernel's IIO magnetometer unit).
  public static let microteslaPerGauss = 100.0

  /// Converts a specific-force reading in m/s² (what accelerometers and datasets report: +9.81 up
  /// at rest) to Core Motion's acceleration in g (its negation: lying face up reads (0, 0, −1)).
  @inlinable
  public static func coreMotionAcceleration(fromSpecificForce f: SIMD3<Double>) -> SIMD3<Double> {
    -f / standardGravity
  }

  /// The inverse of ``coreMotionAcceleration(fromSpecificForce:)``: g with Core Motion's sign to
  /// specific force in m/s².
  @inlinable
  public static func specificForce(fromCoreMotionAcceleration a: SIMD3<Double>) -> SIMD3<Double> {
    -a * standardGravity
  }

  /// Wraps an angle in radians into (−π, π].
  @inlinable
  public static func wrapToPi(_ angle: Double) -> Double {
    var a = angle.truncatingRemainder(dividingBy: 2 * .pi)
    if a <= -.pi { a += 2 * .pi } else if a > .pi { a -= 2 * .pi }
    return a
  }
}
