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
    /// Rotate by `angle(τ)` about the body `axis`; `angle` is either an eased total or a windowed
    /// rate.
    case easedRotation(axis: SIMD3<Double>, angle: Double)
    case steadyRotation(axis: SIMD3<Double>, rate: Double, ramp: Double)
    case translation(displacement: SIMD3<Double>)
    case shake(direction: SIMD3<Double>, amplitude: Double, frequency: Double, ramp: Double)
    case impulse(direction: SIMD3<Double>, profile: PiecewiseMotion)
    case walk(WalkParameters)
    case drive(DriveParameters)
    case figure8(period: Double, ramp: Double)
    case gait(GaitMotion)
    case ride(RideMotion)
    case cycle(CycleMotion)
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

  /// A laid-out ``Gait``: the walker's directions, the placement's amplitudes, in metres and
  /// radians.
  struct GaitMotion: Sendable {
    var forward: SIMD3<Double>
    var left: SIMD3<Double>
    /// The walker's lateral and forward axes in the sensor frame at the segment's start.
    var bodyLeft: SIMD3<Double>
    var bodyForward: SIMD3<Double>
    var cadence: Double
    var speed: Double
    var climb: Double
    var ramp: Double
    /// Vertical bounce at the step frequency, m.
    var bounce: Double
    /// Forward surge at the step frequency, m.
    var surge: Double
    /// Lateral sway at the stride frequency (half the step frequency), m.
    var sway: Double
    /// Forward swing at the stride frequency (the thigh carrying a pocket), m.
    var strideSwing: Double
    /// Rotation about the walker's lateral axis at the stride frequency, rad.
    var swingAngle: Double
    /// Rotation about the lateral axis at the step frequency, rad.
    var stepPitch: Double
    /// Rotation about the forward axis at the stride frequency, rad.
    var strideRoll: Double
  }

  struct RideMotion: Sendable {
    var kind: RideKind
    var forward: SIMD3<Double>
    var climb: Double
    var ramp: Double
  }

  struct CycleMotion: Sendable {
    var forward: SIMD3<Double>
    var bodyLeft: SIMD3<Double>
    var cadence: Double
    var speed: Double
    var ramp: Double
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

  init(
    _ specification: ScenarioSegment, start: Double, attitude: Quaternion, position: SIMD3<Double>
  ) {
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
        ? .hold
        : .steadyRotation(axis: unit, rate: rate * Units.radiansPerDegree, ramp: Swift.max(ramp, 0))
    case .translate(let displacement, _):
      motion = .translation(displacement: displacement)
    case .shake(let axis, let amplitude, let frequency, _):
      motion = .shake(
        direction: attitude.act(on: axis.normalized), amplitude: amplitude, frequency: frequency,
        ramp: 0.25)
    case .tap(let axis, let peak, let pulse, _):
      motion = .impulse(
        direction: attitude.act(on: axis.normalized),
        profile: Self.tapProfile(peak: peak, pulse: pulse))
    case .freeFall(let drop, let catchDuration, _):
      motion =
        drop > 0
        ? .impulse(
          direction: Self.up, profile: Self.fallProfile(drop: drop, catchDuration: catchDuration))
        : .hold
    case .walk(let cadence, let speed, let duration):
      let (forward, left) = Self.heading(of: attitude)
      motion = .walk(
        WalkParameters(
          forward: forward, left: left, cadence: cadence, speed: speed,
          ramp: Swift.min(1, duration / 2)))
    case .drive(let speed, let duration, let vibration, let ramp, let turns):
      let (forward, left) = Self.heading(of: attitude)
      var parameters = DriveParameters(
        forward: forward, left: left, speed: speed, vibration: vibration,
        ramp: Swift.min(Swift.max(ramp, 0.1), duration / 2), turns: turns)
      parameters.knots = Self.integrateDrive(parameters, duration: duration)
      motion = .drive(parameters)
    case .figure8(let period, let duration):
      motion = .figure8(period: period, ramp: Swift.min(1, duration / 2))
    case .gait(let gait, let duration):
      motion = .gait(Self.layOutGait(gait, attitude: attitude, duration: duration))
    case .ride(let kind, let climb, let duration):
      let (forward, _) = Self.heading(of: attitude)
      let ramp = Swift.min(kind == .lift ? 2 : 1, duration / 2)
      motion = .ride(RideMotion(kind: kind, forward: forward, climb: climb, ramp: ramp))
    case .cycle(let cadence, let speed, let duration):
      let (forward, left) = Self.heading(of: attitude)
      motion = .cycle(
        CycleMotion(
          forward: forward, bodyLeft: attitude.conjugate.act(on: left), cadence: cadence,
          speed: speed,
          ramp: Swift.min(2, duration / 2)))
    }
  }

  /// The amplitudes of each placement and style. Walking figures follow the hand-held `walk`
  /// model; running roughly doubles the bounce (a runner's centre of mass rises 6–10 cm per
  /// stride); a pocket swings with the thigh (±20° walking, ±35° running, 0.3–0.4 m from the hip).
  static func layOutGait(_ gait: Gait, attitude: Quaternion, duration: Double) -> GaitMotion {
    let (forward, left) = heading(of: attitude)
    let running = gait.style == .run
    var motion = GaitMotion(
      forward: forward, left: left, bodyLeft: attitude.conjugate.act(on: left),
      bodyForward: attitude.conjugate.act(on: forward), cadence: gait.cadence, speed: gait.speed,
      climb: gait.climb, ramp: Swift.min(1, duration / 2), bounce: running ? 0.07 : walkBounce,
      surge: running ? 0.06 : walkSurge, sway: running ? 0.03 : walkSway, strideSwing: 0,
      swingAngle: 0,
      stepPitch: walkPitchSway, strideRoll: walkRollSway)
    let degree = Units.radiansPerDegree
    switch gait.placement {
    case .hand:
      if running { motion.stepPitch = 5 * degree }
    case .frontPocket:
      motion.swingAngle = (running ? 35 : 20) * degree
      motion.strideSwing = running ? 0.1 : 0.12
      motion.stepPitch = 1 * degree
    case .backPocket:
      motion.swingAngle = (running ? 25 : 14) * degree
      motion.strideSwing = running ? 0.14 : 0.08
      motion.stepPitch = 1 * degree
    case .bag:
      motion.bounce *= 0.8
      motion.swingAngle = 6 * degree
      motion.strideSwing = 0.04
      motion.stepPitch = 1 * degree
      motion.strideRoll = 4 * degree
    }
    return motion
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
    profile.append(
      duration: pulse, acceleration: (peak / bumpPeak) * Polynomial.bump(duration: pulse))
    let slide = 4 * pulse
    profile.append(
      duration: slide, acceleration: (-peak / bumpPeak / 4) * Polynomial.bump(duration: slide))
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
  private static func driveVelocity(
    _ d: DriveParameters, _ t: Double, duration: Double
  ) -> SIMD3<Double> {
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
  private static func gaussIntegral(
    _ d: DriveParameters, from a: Double, to b: Double, duration: Double
  )
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
    yaw: Jet = .zero, _ a1: SIMD3<Double> = xAxis, _ theta1: Jet = .zero,
    _ a2: SIMD3<Double> = yAxis,
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
        rate * SmoothProfile.windowIntegral(t, duration: duration, ramp: ramp), rate * w.value,
        rate * w.rate)
      (q, omega) = attitude(axis, theta)
    case .translation(let displacement):
      offset = VectorJet(direction: displacement, SmoothProfile.smoothstep(t, duration: duration))
    case .shake(let direction, let amplitude, let frequency, let ramp):
      let w = SmoothProfile.window(t, duration: duration, ramp: ramp)
      offset = VectorJet(
        direction: direction, amplitude * (w * Jet.sinusoid(t, frequency: frequency)))
    case .impulse(let direction, let profile):
      offset = VectorJet(direction: direction, profile(t))
    case .walk(let p):
      let w = SmoothProfile.window(t, duration: duration, ramp: p.ramp)
      let step = Jet.sinusoid(t, frequency: p.cadence)
      let stepCos = Jet.sinusoid(t, frequency: p.cadence, phase: .pi / 2)
      let stride = Jet.sinusoid(t, frequency: p.cadence / 2)
      let travel = Jet(
        p.speed * SmoothProfile.windowIntegral(t, duration: duration, ramp: p.ramp),
        p.speed * w.value,
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
        d.knots[k]
        + Self.gaussIntegral(d, from: Double(k) * d.knotSpacing, to: t, duration: duration)
      let acceleration = (d.speed * w.rate) * direction + (speed * heading.rate) * across
      // Road vibration: broadband (suspension and wheel resonances), scaled by speed so that it
      // stops with the car.
      let bounce = RoadVibration.car.displacement(t, level: d.vibration * w)
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
      let roll =
        (150 * Units.radiansPerDegree) * (w * Jet.sinusoid(t, frequency: f, phase: .pi / 2))
      offset =
        VectorJet(direction: Self.xAxis, 0.2 * (w * Jet.sinusoid(t, frequency: f)))
        + VectorJet(direction: Self.up, 0.1 * (w * Jet.sinusoid(t, frequency: 2 * f)))
      (q, omega) = attitude(yaw: yaw, Self.xAxis, pitch, Self.yAxis, roll)
    case .gait(let g):
      let w = SmoothProfile.window(t, duration: duration, ramp: g.ramp)
      let step = Jet.sinusoid(t, frequency: g.cadence)
      let stepCos = Jet.sinusoid(t, frequency: g.cadence, phase: .pi / 2)
      let stride = Jet.sinusoid(t, frequency: g.cadence / 2)
      let progress = Self.progress(t, duration: duration, ramp: g.ramp)
      let travel = g.speed * progress.distance
      offset =
        VectorJet(
          direction: g.forward, travel + g.surge * (w * step) + g.strideSwing * (w * stride))
        + VectorJet(direction: Self.up, g.climb * progress.fraction - g.bounce * (w * stepCos))
        + VectorJet(direction: g.left, g.sway * (w * stride))
      (q, omega) = attitude(
        g.bodyLeft, g.swingAngle * (w * stride) + g.stepPitch * (w * step), g.bodyForward,
        g.strideRoll * (w * stride))
    case .ride(let r):
      switch r.kind {
      case .lift:
        // Guide-rail hum: lift ride-quality figures are a few hundredths of a m/s² (3.5 µm at 19 Hz
        // is 0.05 m/s²).
        let hum =
          3.5e-6
          * (SmoothProfile.window(t, duration: duration, ramp: r.ramp)
            * Jet.sinusoid(t, frequency: 19))
        // A lift's car accelerates for about `ramp` seconds (0.5–1 m/s² at its peak, as lifts
        // do), travels at a steady speed and slows down over the last `ramp` seconds.
        let progress = Self.progress(t, duration: duration, ramp: r.ramp)
        offset = VectorJet(direction: Self.up, r.climb * progress.fraction + hum)
      case .escalator:
        let progress = Self.progress(t, duration: duration, ramp: r.ramp)
        // 0.5 m/s along the incline: the horizontal part is what the climb leaves of it.
        let along = 0.5 * (duration - r.ramp)
        let horizontal = (Swift.max(along * along - r.climb * r.climb, 0)).squareRoot()
        // Step-chain rumble of about 0.1 m/s² (31 µm at 9 Hz).
        let rumble =
          3.1e-5
          * (SmoothProfile.window(t, duration: duration, ramp: r.ramp)
            * Jet.sinusoid(t, frequency: 9))
        offset =
          VectorJet(direction: r.forward, horizontal * progress.fraction)
          + VectorJet(direction: Self.up, r.climb * progress.fraction + rumble)
      }
    case .cycle(let c):
      let w = SmoothProfile.window(t, duration: duration, ramp: c.ramp)
      let progress = Self.progress(t, duration: duration, ramp: c.ramp)
      let pedal = Jet.sinusoid(t, frequency: c.cadence)
      // Road roughness: broadband as for driving, but stronger and stiffer (no suspension).
      let bumps = RoadVibration.bicycle.displacement(t, level: w)
      offset =
        VectorJet(direction: c.forward, c.speed * progress.distance + 0.06 * (w * pedal))
        + VectorJet(
          direction: Self.up,
          0.03 * (w * Jet.sinusoid(t, frequency: c.cadence, phase: .pi / 2)) + bumps)
      // The thigh rises and falls with each pedal turn (about ±25°).
      (q, omega) = attitude(c.bodyLeft, (25 * Units.radiansPerDegree) * (w * pedal))
    }
    return KinematicState(
      time: time, earthFromSensor: q, angularVelocity: omega,
      position: startPosition + offset.value,
      velocity: offset.rate, acceleration: offset.acceleration)
  }

  /// Travel along an eased plateau: `distance` is the window's integral (seconds at full speed, as
  /// a jet) and `fraction` the share of the segment's travel done by `t` (a jet, 0 → 1).
  @inline(__always)
  private static func progress(
    _ t: Double, duration: Double, ramp: Double
  ) -> (distance: Jet, fraction: Jet) {
    let w = SmoothProfile.window(t, duration: duration, ramp: ramp)
    let distance = Jet(
      SmoothProfile.windowIntegral(t, duration: duration, ramp: ramp), w.value, w.rate)
    let total = Swift.max(
      SmoothProfile.windowIntegral(duration, duration: duration, ramp: ramp), 1e-9)
    return (distance, (1 / total) * distance)
  }
}
