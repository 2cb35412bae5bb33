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
  let motion: Motion

  enum Motion: Sendable {
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
    /// Seconds between knots: 0.1, longer for drives over an hour
    /// (``TrajectorySegment/knotSpacing(forDriveOf:)``).
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
    /// Rotation about the walker's lateral axis at the stride frequency, rad: back at the top while
    /// `strideSwing` is forward, as for a pendulum hung from the hip (or a strap's shoulder).
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

  static let xAxis = SIMD3<Double>(1, 0, 0)
  static let yAxis = SIMD3<Double>(0, 1, 0)
  static let up = SIMD3<Double>(0, 0, 1)

  // Walking figures for a phone held in front of the body (vertical bounce peaks near 0.4 g).
  static let walkBounce = 0.03  // m, vertical, at the step frequency
  static let walkSurge = 0.04  // m, forward, at the step frequency
  static let walkSway = 0.025  // m, lateral, at half the step frequency (left/right foot)
  static let walkPitchSway = 2.0 * Units.radiansPerDegree
  static let walkRollSway = 1.5 * Units.radiansPerDegree

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
        ramp: Swift.min(Swift.max(ramp, 0.1), duration / 2), turns: turns,
        knotSpacing: Self.knotSpacing(forDriveOf: duration))
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
}
