// SPDX-License-Identifier: Apache-2.0

/// Step length as a function of cadence, for `CMPedometerData.distance`.
///
/// CONTRACT (keep the signatures): `init(userHeight:)` (metres, optional),
/// `strideLength(cadence:) -> Double` (metres per step for a cadence in steps/s).
///
/// The implementation here is a placeholder (scaffolding): the step-counter work replaces it.
public struct StrideModel: Sendable, Equatable {
  /// The user's height in metres, if known.
  public var userHeight: Double?

  public init(userHeight: Double? = nil) {
    self.userHeight = userHeight
  }

  /// Metres per step at `cadence` steps per second.
  public func strideLength(cadence: Double) -> Double {
    let height = userHeight ?? 1.70
    let scale = cadence.isFinite ? min(max(cadence, 0.5), 4) : 1.8
    return height * (0.30 + 0.07 * scale)
  }
}
