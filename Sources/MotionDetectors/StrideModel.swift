// SPDX-License-Identifier: Apache-2.0

/// Step length as a function of cadence, for `CMPedometerData.distance`.
///
/// CONTRACT (keep the signatures): `init(userHeight:)` (metres, optional),
/// `strideLength(cadence:) -> Double` (metres per step for a cadence in steps/s).
///
/// The model: step length is proportional to body height, and the proportion grows with cadence
/// (people lengthen their steps as they quicken them; speed = step length × cadence):
///
///     walking, c ≤ 2.2 steps/s:  L / h = 0.41 + 0.08 (c − 1.8)
///     running, c > 2.2 steps/s:  L / h = 0.442 + 0.30 (c − 2.2)
///
/// It is anchored on the pedometer rule of thumb that a normal walking step is about 0.41–0.42 of
/// the body height (at ≈ 1.8 steps/s, a typical adult cadence; e.g. 0.70 m for 1.70 m at
/// 1.26 m/s). The walking slope gives 0.37 h at a slow 1.3 steps/s and 0.44 h at a brisk
/// 2.2 steps/s; the running branch gives ≈ 0.62 h (1.06 m for 1.70 m, 3 m/s) at 2.8 steps/s. The
/// constants are round values of that kind, not fitted to our data; the IPOL check is in
/// `docs/Steps.md`. Without a height, 1.70 m (an adult average) is assumed. Cadence is clamped to
/// 0.5–4 steps/s; a non-finite cadence means 1.8.
public struct StrideModel: Sendable, Equatable {
  /// The user's height in metres, if known.
  public var userHeight: Double?

  /// Height assumed when none is given, m.
  public static let defaultHeight = 1.70

  public init(userHeight: Double? = nil) {
    self.userHeight = userHeight
  }

  /// Metres per step at `cadence` steps per second.
  public func strideLength(cadence: Double) -> Double {
    var height = Self.defaultHeight
    if let userHeight, userHeight.isFinite, userHeight >= 0.5, userHeight <= 2.8 {
      height = userHeight
    }
    let c = cadence.isFinite ? min(max(cadence, 0.5), 4) : 1.8
    let ratio = c <= 2.2 ? 0.41 + 0.08 * (c - 1.8) : 0.442 + 0.30 * (c - 2.2)
    return height * ratio
  }
}
