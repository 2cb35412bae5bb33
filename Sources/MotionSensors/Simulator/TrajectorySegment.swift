// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// One laid-out segment of a ``ScenarioTrajectory``: a ``ScenarioSegment`` bound to its start
/// time, start attitude and start position, with everything that does not depend on time
/// precomputed.
struct TrajectorySegment: Sendable {
  let start: Double
  let duration: Double
  let startAttitude: Quaternion
  let startPosition: SIMD3<Double>
  let specification: ScenarioSegment
  private let motion: Motion

  private enum Motion: Sendable {
    case hold
    /// Rotate by `angle(τ)` about the body `axis`; `angle` is either an eased total or a windowed rate.
    case easedRotation(axis: SIMD3<Double>, angle: Double)
    case steadyRotation(axis: SIMD3<Double>, rate: Double, ramp: Double)
    case translation(displacement: SIMD3<Double>)
    case shake(direction: SIMD3<Double>, amplitude: Double, frequency: Double, ramp: Double)
    case impulse(direction: SIMD3<Double>, profile: PiecewiseMotion)
    case walk(WalkParameters)
    case drive(DriveParameters)
    case figure8(period: Double, ramp: Double)
  }

  struct WalkParameters: Sendable {
    var forward: SIMD3<Double>
    var left: SIMD3<Double>
    var cadence: Double
    var speed: Double
    var ramp: Double
  }

  struct DriveParameters: Sendable {
    var forward: SIMD3<Double>
    var left: SIMD3<Double>
    var speed: Double
    var vibration: Double
    var ramp: Double
    var turns: [DriveTurn]
    /// Horizontal displacement at `knotSpacing` intervals (integrated once, at layout).
    var knots: [SIMD3<Double>] = []
    var knotSpacing: Double = 0.1
  }

  private static let xAxis = SIMD3<Double>(1, 0, 0)
  private static let yAxis = SIMD3<Double>(0, 1, 0)
  private static let up = SIMD3<Double>(0, 0, 1)

  // Walking figures for a phone held in front of the body (vertical bounce peaks near 0.4 g).
  private static let walkBounce = 0.03  // m, vertical, at the step frequency
  private static let walkSurge = 0.04  // m, forward, at the step frequency
  private static let walkSway = 0.025  // m, lateral, at half the step frequency (left/right foot)
  private static let walkPitchSway = 2.0 * Units.radiansPerDegree
  private static let walkRollSway = 1.5 * Units.radiansPerDegree

  init(_ specification: ScenarioSegment, start: Double, attitude: Quaternion, position: SIMD3<Double>) {
    self.start = start
    self.duration = specification.duration
    self.startAttitude = attitude
    self.startPosition = position
    self.specification = specification
    switch specification {
    case .rest:
      motion = .hold
    case .moveTo(let target, _):
      let relative = (attitude.conjugate * target.earthFromSensor).canonicalized
      let rotationVector = relative.rotationVector
      let angle = rotationVector.length
      motion = angle < 1e-12 ? .hold : .easedRotation(axis: rotationVector / angle, angle: angle)
    case .rotate(let axis, let rate, _, let ramp):
      let unit = axis.normalized
      motion =
        unit == .zero || rate == 0
        ? .hold : .steadyRotation(axis: unit, rate: rate * Units.radiansPerDegree, ramp: Swift.max(ramp, 0))
    case .translate(let displacement, _):
      motion = .translation(displacement: displacement)
    case .shake(let axis, let amplitude, let frequency, _):
      motion = .shake(
        direction: attitude.act(on: axis.normalized), amplitude: amplitude, frequency: frequency, ramp: 0.25)
    case .tap(let axis, let peak, let pulse, _):
      motion = .impulse(
        direction: attitude.act(on: axis.normalized), profile: Self.tapProfile(peak: peak, pulse: pulse))
    case .freeFall(let drop, let catchDuration, _):
      motion =
        drop > 0
        ? .impulse(direction: Self.up, profile: Self.fallProfile(drop: drop, catchDuration: catchDuration))
        : .hold
    case .walk(let cadence, let speed, let duration):
      let (forward, left) = Self.heading(of: attitude)
      motion = .walk(
        WalkParameters(
          forward: forward, left: left, cadence: cadence, speed: speed, ramp: Swift.min(1, duration / 2)))
    case .drive(let speed, let duration, let vibration, let ramp, let turns):
      let (forward, left) = Self.heading(of: attitude)
      var parameters = DriveParameters(
        forward: forward, left: left, speed: speed, vibration: vibration,
        ramp: Swift.min(Swift.max(ramp, 0.1), duration / 2), turns: turns)
      parameters.knots = Self.integrateDrive(parameters, duration: duration)
      motion = .drive(parameters)
    case .figure8(let period, let duration):
      motion = .figure8(period: period, ramp: Swift.min(1, duration / 2))
    }
  }

  /// The horizontal direction the user faces, given the device attitude: the device's +y (top
  /// edge) projected on the horizontal, or −z (the back of the device) when +y is nearly vertical.
  static func heading(of attitude: Quaternion) -> (forward: SIMD3<Double>, left: SIMD3<Double>) {
    var forward = attitude.act(on: yAxis)
    forward.z = 0
    if forward.length < 0.3 {
      forward = -attitude.act(on: up)
      forward.z = 0
    }
    if forward.length < 1e-6 { forward = xAxis }
    forward = forward.normalized
    return (forward, up.cross(forward))
  }

  /// A knock: a sharp positive bump of acceleration (peak `peak` m/s² over `pulse` s) followed by a
  /// gentler negative bump four times as long that brings the device to rest again.
  static func tapProfile(peak: Double, pulse: Double) -> PiecewiseMotion {
    var profile = PiecewiseMotion()
    let bumpPeak = 1.875  // the maximum of 30u²(1 − u)²
    profile.append(duration: pulse, acceleration: (peak / bumpPeak) * Polynomial.bump(duration: pulse))
    let slide = 4 * pulse
    profile.append(duration: slide, acceleration: (-peak / bumpPeak / 4) * Polynomial.bump(duration: slide))
    return profile
  }

  /// A drop: gravity takes over within 30 ms (a hand letting go), free fall, then a catch that
  /// eases the acceleration back and stops the device within `catchDuration` seconds.
  static func fallProfile(drop: Double, catchDuration: Double) -> PiecewiseMotion {
    let g = Units.standardGravity
    let release = Swift.min(0.03, drop / 2)
    var profile = PiecewiseMotion()
    profile.append(duration: release, acceleration: -g * Polynomial.smoothstep(duration: release))
    profile.append(duration: drop - release, acceleration: .constant(-g))
    let v0 = profile.finalVelocity
    // a(τ) = −g(1 − s) + c·bump: ∫a = −g·T/2 + c·T must cancel v0.
    let c = g / 2 - v0 / catchDuration
    profile.append(
      duration: catchDuration,
      acceleration: Polynomial.constant(-g) + g * Polynomial.smoothstep(duration: catchDuration) + c
        * Polynomial.bump(duration: catchDuration))
    return profile
  }

  /// The horizontal velocity of a drive at local time `t`, m/s, earth frame.
  private static func driveVelocity(_ d: DriveParameters, _ t: Double, duration: Double) -> SIMD3<Double> {
    let speed = d.speed * SmoothProfile.window(t, duration: duration, ramp: d.ramp).value
    let heading = driveHeading(d, t).value
    return speed * (Double.cos(heading) * d.forward + Double.sin(heading) * d.left)
  }

  /// The heading change (radians, counter-clockwise) of a drive at local time `t`, as a jet.
  @inline(__always)
  private static func driveHeading(_ d: DriveParameters, _ t: Double) -> Jet {
    var heading = Jet.zero
    for turn in d.turns {
      heading =
        heading + (turn.angle * Units.radiansPerDegree)
        * SmoothProfile.smoothstep(t - turn.start, duration: turn.duration)
    }
    return heading
  }

  /// The integral of `velocity` over `[a, b]` (five-point Gauss–Legendre: exact for degree 9, so
  /// far below a millimetre over a 0.1 s interval of smooth driving).
  private static func gaussIntegral(_ d: DriveParameters, from a: Double, to b: Double, duration: Double)
    -> SIMD3<Double>
  {
    let nodes = (0.0, 0.538_469_310_105_683_1, 0.906_179_845_938_664_0)
    let weights = (0.568_888_888_888_888_9, 0.478_628_670_499_366_5, 0.236_926_885_056_189_1)
    let half = (b - a) / 2
    let mid = (a + b) / 2
    var sum = weights.0 * driveVelocity(d, mid, duration: duration)
    sum +=
      weights.1
      * (driveVelocity(d, mid - half * nodes.1, duration: duration)
        + driveVelocity(d, mid + half * nodes.1, duration: duration))
    sum +=
      weights.2
      * (driveVelocity(d, mid - half * nodes.2, duration: duration)
        + driveVelocity(d, mid + half * nodes.2, duration: duration))
    return half * sum
  }

  private static func integrateDrive(_ d: DriveParameters, duration: Double) -> [SIMD3<Double>] {
    let count = Int((duration / d.knotSpacing).rounded(.up)) + 1
    var knots = [SIMD3<Double>](repeating: .zero, count: count)
    for k in 1..<count {
      let a = Double(k - 1) * d.knotSpacing
      knots[k] = knots[k - 1] + gaussIntegral(d, from: a, to: a + d.knotSpacing, duration: duration)
    }
    return knots
  }

  /// `q = Rz(yaw) ⊗ q₀ ⊗ R(a₁, θ₁) ⊗ R(a₂, θ₂)` and its body angular velocity
  /// `ω = (q₀R₁R₂)⁻¹·ẑ·ψ̇ + R₂⁻¹·a₁·θ̇₁ + a₂·θ̇₂` (unit axes; yaw about the earth's vertical).
  @inline(__always)
  private func attitude(
    yaw: Jet = .zero, _ a1: SIMD3<Double> = xAxis, _ theta1: Jet = .zero, _ a2: SIMD3<Double> = yAxis,
    _ theta2: Jet = .zero
  ) -> (Quaternion, SIMD3<Double>) {
    let r2 = Quaternion(angle: theta2.value, axis: a2)
    let r1 = Quaternion(angle: theta1.value, axis: a1)
    let inner = startAttitude * r1 * r2
    let q = yaw.value == 0 ? inner : Quaternion.aboutZ(yaw.value) * inner
    var omega = a2 * theta2.rate + r2.conjugate.act(on: a1) * theta1.rate
    if yaw.rate != 0 { omega += inner.conjugate.act(on: Self.up) * yaw.rate }
    return (q, omega)
  }

  /// The true motion at absolute time `time` (clamped into the segment).
  func state(at time: Double) -> KinematicState {
    let t = Swift.min(Swift.max(time - start, 0), duration)
    var q = startAttitude
    var omega = SIMD3<Double>.zero
    var offset = VectorJet.zero
    switch motion {
    case .hold:
      break
    case .easedRotation(let axis, let angle):
      (q, omega) = attitude(axis, angle * SmoothProfile.smoothstep(t, duration: duration))
    case .steadyRotation(let axis, let rate, let ramp):
      let w = SmoothProfile.window(t, duration: duration, ramp: ramp)
      let theta = Jet(
        rate * SmoothProfile.windowIntegral(t, duration: duration, ramp: ramp), rate * w.value, rate * w.rate)
      (q, omega) = attitude(axis, theta)
    case .translation(let displacement):
      offset = VectorJet(direction: displacement, SmoothProfile.smoothstep(t, duration: duration))
    case .shake(let direction, let amplitude, let frequency, let ramp):
      let w = SmoothProfile.window(t, duration: duration, ramp: ramp)
      offset = VectorJet(direction: direction, amplitude * (w * Jet.sinusoid(t, frequency: frequency)))
    case .impulse(let direction, let profile):
      offset = VectorJet(direction: direction, profile(t))
    case .walk(let p):
      let w = SmoothProfile.window(t, duration: duration, ramp: p.ramp)
      let step = Jet.sinusoid(t, frequency: p.cadence)
      let stepCos = Jet.sinusoid(t, frequency: p.cadence, phase: .pi / 2)
      let stride = Jet.sinusoid(t, frequency: p.cadence / 2)
      let travel = Jet(
        p.speed * SmoothProfile.windowIntegral(t, duration: duration, ramp: p.ramp), p.speed * w.value,
        p.speed * w.rate)
      offset =
        VectorJet(direction: p.forward, travel + Self.walkSurge * (w * step))
        + VectorJet(direction: Self.up, -Self.walkBounce * (w * stepCos))
        + VectorJet(direction: p.left, Self.walkSway * (w * stride))
      (q, omega) = attitude(
        Self.xAxis, Self.walkPitchSway * (w * step), Self.yAxis, Self.walkRollSway * (w * stride))
    case .drive(let d):
      let w = SmoothProfile.window(t, duration: duration, ramp: d.ramp)
      let heading = Self.driveHeading(d, t)
      let direction = Double.cos(heading.value) * d.forward + Double.sin(heading.value) * d.left
      let across = -Double.sin(heading.value) * d.forward + Double.cos(heading.value) * d.left
      let speed = d.speed * w.value
      let k = Swift.min(Int(t / d.knotSpacing), d.knots.count - 1)
      let horizontal =
        d.knots[k] + Self.gaussIntegral(d, from: Double(k) * d.knotSpacing, to: t, duration: duration)
      let acceleration = (d.speed * w.rate) * direction + (speed * heading.rate) * across
      // Road and engine vibration: two incommensurate tones, scaled by speed so they stop with the car.
      let vibration = d.vibration * w
      let f1 = 11.0
      let f2 = 17.3
      let bounce =
        (0.7 / Self.squared(2 * .pi * f1)) * (vibration * Jet.sinusoid(t, frequency: f1))
        + (0.5 / Self.squared(2 * .pi * f2)) * (vibration * Jet.sinusoid(t, frequency: f2, phase: 1))
      offset =
        VectorJet(value: horizontal, rate: speed * direction, acceleration: acceleration)
        + VectorJet(direction: Self.up, -1 * bounce)
      let pitchJitter = (0.15 * Units.radiansPerDegree) * (w * Jet.sinusoid(t, frequency: 7.7))
      (q, omega) = attitude(yaw: heading, Self.xAxis, pitchJitter)
    case .figure8(let period, let ramp):
      let w = SmoothProfile.window(t, duration: duration, ramp: ramp)
      let f = 1 / period
      let yaw = (180 * Units.radiansPerDegree) * (w * Jet.sinusoid(t, frequency: f))
      let pitch = (75 * Units.radiansPerDegree) * (w * Jet.sinusoid(t, frequency: 2 * f))
      let roll = (150 * Units.radiansPerDegree) * (w * Jet.sinusoid(t, frequency: f, phase: .pi / 2))
      offset =
        VectorJet(direction: Self.xAxis, 0.2 * (w * Jet.sinusoid(t, frequency: f)))
        + VectorJet(direction: Self.up, 0.1 * (w * Jet.sinusoid(t, frequency: 2 * f)))
      (q, omega) = attitude(yaw: yaw, Self.xAxis, pitch, Self.yAxis, roll)
    }
    return KinematicState(
      time: time, earthFromSensor: q, angularVelocity: omega, position: startPosition + offset.value,
      velocity: offset.rate, acceleration: offset.acceleration)
  }

  @inline(__always)
  private static func squared(_ x: Double) -> Double { x * x }
}
