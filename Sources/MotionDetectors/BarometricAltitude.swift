// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// The ICAO standard atmosphere's pressure–height relation, used to turn barometer readings into
/// heights.
///
/// `h(p) = 44 330.77 m · (1 − (p / 101.325 kPa)^0.190263)`. Only differences of `h` are used (a
/// relative altitude, a climb), and those hardly depend on the reference pressure: at 95 kPa a
/// 1 kPa error in the reference changes a 3 m climb by 3 mm. iPhones report `relativeAltitude` as
/// exactly this difference of their own pressure readings, so using the same formula keeps us in
/// step with them.
public enum BarometricAltitude {
  /// Standard sea-level pressure in kPa.
  public static let standardSeaLevelPressure = 101.325

  /// The pressures, kPa, that a barometer on a person can read: 1 kPa is the standard atmosphere
  /// about 31 km up (beyond any aircraft cabin, 75 kPa, or Everest's summit, 33 kPa) and 200 kPa
  /// is 10 m under water (beyond the 6 m a waterproof phone is rated for). Anything outside is a
  /// broken reading or the wrong unit (Pa read as kPa), and is refused rather than averaged in:
  /// one 1e306 kPa reading used to poison the smoothed pressure for good, because the later
  /// readings were lost to cancellation against it.
  public static let plausiblePressureRange: ClosedRange<Double> = 1...200

  /// Whether `pressure` kPa is finite and within ``plausiblePressureRange``.
  @inline(__always)
  public static func isPlausible(pressure: Double) -> Bool {
    plausiblePressureRange.contains(pressure)
  }

  /// Height in metres at which the standard atmosphere has `pressure` kPa.
  @inline(__always)
  public static func height(atPressure pressure: Double) -> Double {
    44_330.77 * (1 - Double.pow(pressure / standardSeaLevelPressure, 0.190_263))
  }
}
