// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// The true motion of a segment at any instant: one function per kind of motion, each giving the
/// displacement from the segment's start (m, earth frame, with its first two derivatives) and the
/// attitude with its body angular velocity.
extension TrajectorySegment {
  /// A motion's state at a local time, before it is placed at the segment's start position.
  struct Pose {
    /// Displacement from the start position (m, earth frame) with velocity and acceleration.
    var offset: VectorJet
    var earthFromSensor: Quaternion
    /// Body-frame angular velocity (rad/s).
    var angularVelocity: SIMD3<Double>

    init(offset: VectorJet = .zero, _ rotation: (Quaternion, SIMD3<Double>)) {
      self.offset = offset
      self.earthFromSensor = rotation.0
      self.angularVelocity = rotation.1
    }
  }

  /// The true motion at absolute time `time` (clamped into the segment).
  func state(at time: Double) -> KinematicState {
    let t = Swift.min(Swift.max(time - start, 0), duration)
    let pose: Pose
    let still = (startAttitude, SIMD3<Double>.zero)
    switch motion {
    case .hold:
      pose = Pose(still)
    case .easedRotation(let axis, let angle):
      pose = Pose(attitude(axis, angle * SmoothProfile.smoothstep(t, duration: duration)))
    case .steadyRotation(let axis, let rate, let ramp):
      let w = SmoothProfile.window(t, duration: duration, ramp: ramp)
      let theta = Jet(
        rate * SmoothProfile.windowIntegral(t, duration: duration, ramp: ramp), rate * w.value,
        rate * w.rate)
      pose = Pose(attitude(axis, theta))
    case .translation(let displacement):
      pose = Pose(
        offset: VectorJet(
          direction: displacement, SmoothProfile.smoothstep(t, duration: duration)),
        still)
    case .shake(let direction, let amplitude, let frequency, let ramp):
      let w = SmoothProfile.window(t, duration: duration, ramp: ramp)
      pose = Pose(
        offset: VectorJet(
          direction: direction, amplitude * (w * Jet.sinusoid(t, frequency: frequency))),
        still)
    case .impulse(let direction, let profile):
      pose = Pose(offset: VectorJet(direction: direction, profile(t)), still)
    case .walk(let p):
      pose = walking(p, at: t)
    case .drive(let d):
      pose = driving(d, at: t)
    case .figure8(let period, let ramp):
      pose = figure8(period: period, ramp: ramp, at: t)
    case .gait(let g):
      pose = gait(g, at: t)
    case .ride(let r):
      pose = riding(r, at: t)
    case .cycle(let c):
      pose = cycling(c, at: t)
    }
    return KinematicState(
      time: time, earthFromSensor: pose.earthFromSensor, angularVelocity: pose.angularVelocity,
      position: startPosition + pose.offset.value,
      velocity: pose.offset.rate, acceleration: pose.offset.acceleration)
  }

  /// The hand-held walk: bounce and surge at the step frequency, sway at the stride frequency.
  private func walking(_ p: WalkParameters, at t: Double) -> Pose {
    let w = SmoothProfile.window(t, duration: duration, ramp: p.ramp)
    let step = Jet.sinusoid(t, frequency: p.cadence)
    let stepCos = Jet.sinusoid(t, frequency: p.cadence, phase: .pi / 2)
    let stride = Jet.sinusoid(t, frequency: p.cadence / 2)
    let travel = Jet(
      p.speed * SmoothProfile.windowIntegral(t, duration: duration, ramp: p.ramp),
      p.speed * w.value,
      p.speed * w.rate)
    let offset =
      VectorJet(direction: p.forward, travel + Self.walkSurge * (w * step))
      + VectorJet(direction: Self.up, -Self.walkBounce * (w * stepCos))
      + VectorJet(direction: p.left, Self.walkSway * (w * stride))
    return Pose(
      offset: offset,
      attitude(
        Self.xAxis, Self.walkPitchSway * (w * step), Self.yAxis, Self.walkRollSway * (w * stride)))
  }

  /// A drive: the path integrated at layout, turns in the heading, road vibration scaled by speed.
  private func driving(_ d: DriveParameters, at t: Double) -> Pose {
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
    let offset =
      VectorJet(value: horizontal, rate: speed * direction, acceleration: acceleration)
      + VectorJet(direction: Self.up, -1 * bounce)
    let pitchJitter = (0.15 * Units.radiansPerDegree) * (w * Jet.sinusoid(t, frequency: 7.7))
    return Pose(offset: offset, attitude(yaw: heading, Self.xAxis, pitchJitter))
  }

  /// A figure eight in the air, turning through yaw, pitch and roll.
  private func figure8(period: Double, ramp: Double, at t: Double) -> Pose {
    let w = SmoothProfile.window(t, duration: duration, ramp: ramp)
    let f = 1 / period
    let yaw = (180 * Units.radiansPerDegree) * (w * Jet.sinusoid(t, frequency: f))
    let pitch = (75 * Units.radiansPerDegree) * (w * Jet.sinusoid(t, frequency: 2 * f))
    let roll =
      (150 * Units.radiansPerDegree) * (w * Jet.sinusoid(t, frequency: f, phase: .pi / 2))
    let offset =
      VectorJet(direction: Self.xAxis, 0.2 * (w * Jet.sinusoid(t, frequency: f)))
      + VectorJet(direction: Self.up, 0.1 * (w * Jet.sinusoid(t, frequency: 2 * f)))
    return Pose(offset: offset, attitude(yaw: yaw, Self.xAxis, pitch, Self.yAxis, roll))
  }

  /// A walk or run with the phone in a hand, a pocket or a bag (amplitudes from
  /// ``layOutGait(_:attitude:duration:)``), climbing `climb` metres over the segment.
  private func gait(_ g: GaitMotion, at t: Double) -> Pose {
    let w = SmoothProfile.window(t, duration: duration, ramp: g.ramp)
    let step = Jet.sinusoid(t, frequency: g.cadence)
    let stepCos = Jet.sinusoid(t, frequency: g.cadence, phase: .pi / 2)
    let stride = Jet.sinusoid(t, frequency: g.cadence / 2)
    let progress = Self.progress(t, duration: duration, ramp: g.ramp)
    let travel = g.speed * progress.distance
    let offset =
      VectorJet(
        direction: g.forward, travel + g.surge * (w * step) + g.strideSwing * (w * stride))
      + VectorJet(direction: Self.up, g.climb * progress.fraction - g.bounce * (w * stepCos))
      + VectorJet(direction: g.left, g.sway * (w * stride))
    // A pocket (or a bag) hangs from above: as it swings forward (a positive `stride`), the knee
    // leads and the phone's upper end tilts back, a negative turn about the walker's left.
    return Pose(
      offset: offset,
      attitude(
        g.bodyLeft, -g.swingAngle * (w * stride) + g.stepPitch * (w * step), g.bodyForward,
        g.strideRoll * (w * stride)))
  }

  /// Standing in a lift or on an escalator: the phone keeps its attitude and moves with the ride.
  private func riding(_ r: RideMotion, at t: Double) -> Pose {
    let progress = Self.progress(t, duration: duration, ramp: r.ramp)
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
      return Pose(
        offset: VectorJet(direction: Self.up, r.climb * progress.fraction + hum),
        (startAttitude, .zero))
    case .escalator:
      // 0.5 m/s along the incline: the horizontal part is what the climb leaves of it.
      let along = 0.5 * (duration - r.ramp)
      let horizontal = (Swift.max(along * along - r.climb * r.climb, 0)).squareRoot()
      // Step-chain rumble of about 0.1 m/s² (31 µm at 9 Hz).
      let rumble =
        3.1e-5
        * (SmoothProfile.window(t, duration: duration, ramp: r.ramp)
          * Jet.sinusoid(t, frequency: 9))
      let offset =
        VectorJet(direction: r.forward, horizontal * progress.fraction)
        + VectorJet(direction: Self.up, r.climb * progress.fraction + rumble)
      return Pose(offset: offset, (startAttitude, .zero))
    }
  }

  /// A bicycle ride with the phone in a trouser pocket: the thigh turns with the pedals.
  private func cycling(_ c: CycleMotion, at t: Double) -> Pose {
    let w = SmoothProfile.window(t, duration: duration, ramp: c.ramp)
    let progress = Self.progress(t, duration: duration, ramp: c.ramp)
    let pedal = Jet.sinusoid(t, frequency: c.cadence)
    // Road roughness: broadband as for driving, but stronger and stiffer (no suspension).
    let bumps = RoadVibration.bicycle.displacement(t, level: w)
    // The pocket is a point on the thigh, which turns about the hip: seated, the thigh slopes
    // forward and down, and the crank lifts the knee to its highest (the thigh nearest level) as
    // its pedal passes the top. Turning the thigh up about the hip carries every point of it both
    // up and forward, so the pocket is highest and furthest forward together, in step with the
    // thigh's turn: `pedal` = 1 is knee up for all three. (A quarter turn between the height and
    // the turn would put the pocket at its highest with the thigh at mid-swing.)
    let offset =
      VectorJet(direction: c.forward, c.speed * progress.distance + 0.06 * (w * pedal))
      + VectorJet(direction: Self.up, 0.03 * (w * pedal) + bumps)
    // The thigh rises and falls with each pedal turn (about ±25°) about the hip, above the pocket:
    // as the knee rises the pocket moves forward and the thigh turns negatively about the left.
    return Pose(
      offset: offset, attitude(c.bodyLeft, (-25 * Units.radiansPerDegree) * (w * pedal)))
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
