// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Smooth scalar building blocks for trajectories: easing curves, windows and bumps whose first
/// and second derivatives vanish where they join a constant, so that the composed position is C²
/// and the attitude C¹.
enum SmoothProfile {
  /// The quintic smoothstep `6u⁵ − 15u⁴ + 10u³` of `t/duration`, clamped to [0, 1], as a jet of
  /// `t`.
  ///
  /// Its first and second derivatives are zero at both ends, which is what makes segment joins C².
  @inline(__always)
  static func smoothstep(_ t: Double, duration: Double) -> Jet {
    guard duration > 0 else { return Jet(t >= 0 ? 1 : 0) }
    if t <= 0 { return Jet(0) }
    if t >= duration { return Jet(1) }
    let u = t / duration
    let u2 = u * u
    let u3 = u2 * u
    let value = u3 * (10 + u * (-15 + 6 * u))
    let d1 = 30 * u2 * (1 - u) * (1 - u) / duration
    let d2 = 60 * u * (1 - u) * (1 - 2 * u) / (duration * duration)
    return Jet(value, d1, d2)
  }

  /// The integral of the quintic smoothstep from 0 to `u` (in units of `u`): `u⁶ − 3u⁵ + 5u⁴/2`.
  @inline(__always)
  static func smoothstepIntegral(_ u: Double) -> Double {
    let v = Swift.min(Swift.max(u, 0), 1)
    let v4 = v * v * v * v
    return v4 * (2.5 + v * (-3 + v)) + Swift.max(u - 1, 0)
  }

  /// A plateau window of length `duration` that rises from 0 to 1 over `ramp` seconds and falls
  /// back over the last `ramp` seconds (quintic easing), as a jet of `t`. Zero outside.
  @inline(__always)
  static func window(_ t: Double, duration: Double, ramp: Double) -> Jet {
    let r = Swift.min(ramp, duration / 2)
    if t <= 0 || t >= duration { return .zero }
    if t < r { return smoothstep(t, duration: r) }
    if t > duration - r {
      let s = smoothstep(duration - t, duration: r)
      return Jet(s.value, -s.rate, s.acceleration)
    }
    return Jet(1)
  }

  /// The integral of ``window(_:duration:ramp:)`` from 0 to `t`, in seconds.
  @inline(__always)
  static func windowIntegral(_ t: Double, duration: Double, ramp: Double) -> Double {
    let r = Swift.min(ramp, duration / 2)
    let total = duration - r
    if t <= 0 { return 0 }
    if t >= duration { return total }
    guard r > 0 else { return t }
    if t < r { return r * smoothstepIntegral(t / r) }
    if t > duration - r { return total - r * smoothstepIntegral((duration - t) / r) }
    return r / 2 + (t - r)
  }
}
