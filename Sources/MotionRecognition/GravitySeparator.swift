// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Splits accelerometer readings (g, Core Motion's sign) into gravity and user acceleration when
/// the caller has no `CMDeviceMotion`.
///
/// Gravity is a first-order low-pass of the readings (cut-off ``cutoffFrequency``, computed from
/// the timestamps' actual intervals), made to hold still while the device is being moved: when a
/// reading's length differs from 1 g by more than 0.05 g, the filter's gain shrinks linearly, to a
/// tenth at 0.2 g and beyond. Without that, the gravity estimate would swallow part of every jolt
/// and the recognisers would see a distorted, partly cancelled user acceleration.
///
/// When an input already carries ``MotionInput/gravity`` (and ``MotionInput/userAcceleration``),
/// those are passed through unchanged and the estimate is reset to them, so switching sources
/// mid-stream does not jump.
///
/// A reading with a NaN or infinite component (in the acceleration, or in the gravity or user
/// acceleration it carries) is skipped: the estimate and the time of the last reading are kept, and
/// the current gravity (zero before the first usable reading) with no user acceleration is
/// returned. Taken in, an infinite reading made the estimate infinite and the next normal reading
/// made it NaN for good, silently disabling the shake, tap and direction detectors built on the
/// separator; ``MotionInput`` is public, so apps can build such a reading.
public struct GravitySeparator: Sendable {
  /// The low-pass cut-off in Hz that separates gravity from movement. Default 0.8 Hz: slow enough
  /// to leave out a shake (3–6 Hz), quick enough to follow a deliberate turn within a second.
  public var cutoffFrequency: Double
  /// The current gravity estimate in g, or `nil` before the first reading.
  public private(set) var gravity: SIMD3<Double>?
  private var lastTimestamp: Double?

  /// Creates a separator with the given cut-off in Hz (default 0.8 Hz).
  public init(cutoffFrequency: Double = 0.8) {
    self.cutoffFrequency = cutoffFrequency
  }

  /// Returns `(gravity, user)` acceleration in g for `input`.
  public mutating func separate(
    _ input: MotionInput
  ) -> (gravity: SIMD3<Double>, user: SIMD3<Double>) {
    // A non-finite reading would poison the estimate for good: skip it (see the type's
    // documentation).
    let usable =
      input.gravity.map { known in
        known.isFinite && (input.userAcceleration ?? input.acceleration - known).isFinite
      } ?? input.acceleration.isFinite
    guard usable else { return (gravity ?? .zero, .zero) }
    let period = lastTimestamp.map { input.timestamp - $0 } ?? 0
    lastTimestamp = input.timestamp
    if let known = input.gravity {
      gravity = known
      return (known, input.userAcceleration ?? input.acceleration - known)
    }
    guard let previous = gravity, period > 0 else {
      gravity = input.acceleration
      return (input.acceleration, .zero)
    }
    let pole = FilterCoefficients.lowPassPole(
      cutoffFrequency: cutoffFrequency, sampleRate: 1 / period)
    let deviation = Swift.abs(input.acceleration.length - 1)
    let stillness = Swift.min(1, Swift.max(0.1, 1 - (deviation - 0.05) / 0.15))
    let estimate = previous + (1 - pole) * stillness * (input.acceleration - previous)
    gravity = estimate
    return (estimate, input.acceleration - estimate)
  }

  /// Forgets the gravity estimate.
  public mutating func reset() {
    gravity = nil
    lastTimestamp = nil
  }
}
