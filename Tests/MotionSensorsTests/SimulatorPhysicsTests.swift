// SPDX-License-Identifier: Apache-2.0

import MotionMath
import XCTest

@testable import MotionSensors

/// The noiseless simulator's readings follow from its trajectory by the laws the documentation
/// states (specific force, body rate, field, standard atmosphere), read at the middle of each
/// sample's interval (``sensedState(_:_:at:)``); the ground truth is at the timestamp.
final class SimulatorPhysicsTests: XCTestCase {
  private let g = Units.standardGravity

  func testFaceUpAtRestReadsOneGUpAndNoRotation() throws {
    let samples = try simulate(try noiselessScenario("faceUp"))
    XCTAssertEqual(samples.count, 1000)
    for sample in samples {
      // Only rounding separates the identity rotation from exact values.
      assertVectorsEqual(sample.accelerometer, SIMD3(0, 0, g), accuracy: 1e-12)
      assertVectorsEqual(sample.gyroscope, .zero, accuracy: 0)
      assertVectorsEqual(sample.groundTruth?.linearAcceleration, .zero, accuracy: 0)
    }
  }

  func testEachOrientationPointsTheAccelerometerTheRightWay() throws {
    // Core Motion's gravity readings for each UIDeviceOrientation, in g (HELPER_COMMON's table);
    // the specific force is their negation times g.
    let coreMotionGravity: [DeviceOrientationName: SIMD3<Double>] = [
      .faceUp: SIMD3(0, 0, -1), .faceDown: SIMD3(0, 0, 1), .portrait: SIMD3(0, -1, 0),
      .portraitUpsideDown: SIMD3(0, 1, 0), .landscapeLeft: SIMD3(-1, 0, 0),
      .landscapeRight: SIMD3(1, 0, 0),
    ]
    for (name, gravity) in coreMotionGravity {
      let samples = try simulate(try noiselessScenario(name.rawValue, duration: 1))
      XCTAssertEqual(samples.count, 100)
      for sample in samples {
        // Quarter-turn quaternions carry sin/cos(π/4) rounding: 1e-12 m/s² is far above it.
        assertVectorsEqual(sample.accelerometer, -g * gravity, accuracy: 1e-12, "\(name)")
        assertVectorsEqual(
          Units.coreMotionAcceleration(fromSpecificForce: sample.accelerometer!), gravity,
          accuracy: 1e-12,
          "\(name)")
        assertVectorsEqual(sample.gyroscope, .zero, accuracy: 1e-15, "\(name)")
      }
    }
  }

  func testTourVisitsEveryOrientationAtItsRests() throws {
    let scenario = try noiselessScenario("tour")
    XCTAssertGreaterThanOrEqual(scenario.effectiveDuration, 40)
    XCTAssertLessThanOrEqual(scenario.effectiveDuration, 60)
    var stream = SimulatedSensorStream(scenario: scenario)
    let samples = try stream.collect()
    let rests = stream.events.filter { $0.kind == .rest }
    let visited = Set(rests.compactMap(\.detail))
    XCTAssertEqual(visited, Set(DeviceOrientationName.allCases.map(\.rawValue)))
    for rest in rests {
      guard let detail = rest.detail, let name = DeviceOrientationName(rawValue: detail) else {
        continue
      }
      let expected = name.earthFromSensor.conjugate.act(on: SIMD3(0, 0, g))
      // Samples whose interval's middle (the instant they read) lies in the rest.
      for sample in samples where rest.contains(sample.timestamp - 0.5 / scenario.sampleRate) {
        assertVectorsEqual(
          sample.accelerometer, expected, accuracy: 1e-9, "\(name) at \(sample.timestamp)")
      }
    }
    let shakes = stream.events.filter { $0.kind == .shake }
    XCTAssertEqual(shakes.count, 1)
    // It ends where it began, so it loops seamlessly.
    let last = stream.trajectory.state(at: scenario.effectiveDuration)
    XCTAssertLessThan(last.earthFromSensor.angle(to: .identity), 1e-9)
    XCTAssertLessThan(last.position.length, 1e-9)
  }

  func testIntegratedGyroscopeMatchesTrueAttitude() throws {
    // Each rate is the body rate at the middle of its interval (the interval's mean to second
    // order), integrated as the estimator does: the interval's rotation plus the two-sample coning
    // term (Bortz) of consecutive increments, at 100 Hz. Measured worst cases: 2.3e-4° for the
    // 30 s rotations and 0.012° for figure8 (up to ~190 °/s; 5e-4° and 0.024° when the rates were
    // read at the timestamps and integrated by the trapezoidal rule), so 0.1° leaves a wide margin
    // while still catching a gyroscope inconsistent with the attitude (a 1 % rate error gives
    // degrees).
    for name in ["rotateX", "rotateY", "rotateZ", "figure8"] {
      let samples = try simulate(try noiselessScenario(name))
      var attitude = samples[0].groundTruth!.earthFromSensor!
      var worst = 0.0
      for k in 1..<samples.count {
        let dt = samples[k].timestamp - samples[k - 1].timestamp
        let w0 = samples[k - 1].gyroscope!
        let w1 = samples[k].gyroscope!
        let increment = dt * w1 + (dt * dt / 12) * w0.cross(w1)
        attitude = (attitude * Quaternion(rotationVector: increment)).normalized
        worst = Swift.max(worst, attitude.angle(to: samples[k].groundTruth!.earthFromSensor!))
      }
      XCTAssertGreaterThan(samples.last!.timestamp, 25, name)
      XCTAssertLessThan(
        worst * Units.degreesPerRadian, 0.1, "\(name): worst attitude error \(worst) rad")
    }
  }

  func testRotationScenariosTurnAboutTheirAxisAtThirtyDegreesPerSecond() throws {
    for (name, axis) in [
      ("rotateX", SIMD3<Double>(1, 0, 0)), ("rotateY", SIMD3(0, 1, 0)), ("rotateZ", SIMD3(0, 0, 1)),
    ] {
      let samples = try simulate(try noiselessScenario(name))
      let middle = samples[samples.count / 2]
      assertVectorsEqual(
        middle.gyroscope, 30 * Units.radiansPerDegree * axis, accuracy: 1e-12, name)
    }
  }

  func testSpecificForceIsLinearAccelerationMinusGravity() throws {
    for name in Scenario.builtInNames {
      let scenario = try noiselessScenario(name)
      let trajectory = ScenarioTrajectory(scenario: scenario)
      for sample in try simulate(scenario) {
        let truth = sample.groundTruth!
        // The reading: the specific force at the middle of the interval.
        assertVectorsEqual(
          sample.accelerometer,
          sensedState(scenario, trajectory, at: sample.timestamp).specificForce,
          accuracy: 1e-9, name)
        // The truth: the specific force at the timestamp.
        assertVectorsEqual(
          truth.linearAcceleration! - truth.gravity!,
          trajectory.state(at: sample.timestamp).specificForce, accuracy: 1e-9, name)
        XCTAssertEqual(truth.gravity!.length, g, accuracy: 1e-9, name)
        // The gravity truth is the attitude's view of the earth's down direction.
        assertVectorsEqual(
          truth.gravity, truth.earthFromSensor!.conjugate.act(on: SIMD3(0, 0, -g)), accuracy: 1e-9,
          name)
      }
    }
  }

  func testDerivativesAgreeWithFiniteDifferencesOfTheTrajectory() throws {
    // Central differences with h = 1e-4 s: the truncation error (h²/12·|p⁗|, at most ~1e6 m/s⁴ in
    // the tap's bump) stays below 1e-3 m/s², rounding (ε·|p|/h², |p| < 1 km) below 1e-4 m/s².
    let h = 1e-4
    for name in Scenario.builtInNames {
      let scenario = try noiselessScenario(name)
      let trajectory = ScenarioTrajectory(scenario: scenario)
      var t = h
      while t < trajectory.duration - h {
        let before = trajectory.state(at: t - h)
        let now = trajectory.state(at: t)
        let after = trajectory.state(at: t + h)
        let acceleration = (after.position - 2 * now.position + before.position) / (h * h)
        assertVectorsEqual(
          now.acceleration, acceleration, accuracy: 0.01, "\(name) acceleration at \(t)")
        let velocity = (after.position - before.position) / (2 * h)
        assertVectorsEqual(now.velocity, velocity, accuracy: 1e-4, "\(name) velocity at \(t)")
        let rate =
          (before.earthFromSensor.conjugate * after.earthFromSensor).rotationVector / (2 * h)
        assertVectorsEqual(
          now.angularVelocity, rate, accuracy: 1e-4, "\(name) angular velocity at \(t)")
        t += 0.0137  // an irregular step, so segment joins and sample instants are not all aligned
      }
    }
  }

  func testSegmentJoinsAreAtRest() throws {
    // Every segment starts and ends at rest, which is what makes the chain C² in position and C¹
    // in attitude whatever the order.
    for name in Scenario.builtInNames {
      let scenario = try noiselessScenario(name)
      let trajectory = ScenarioTrajectory(scenario: scenario)
      var join = 0.0
      for segment in scenario.segments {
        join += segment.duration
        for t in [join - 1e-9, join + 1e-9] where t > 0 && t < trajectory.duration {
          let state = trajectory.state(at: t)
          XCTAssertLessThan(state.angularVelocity.length, 1e-6, "\(name) at \(t)")
          XCTAssertLessThan(state.velocity.length, 1e-6, "\(name) at \(t)")
          XCTAssertLessThan(state.acceleration.length, 1e-4, "\(name) at \(t)")
        }
      }
    }
  }

  func testMagnetometerHasTheConfiguredStrengthAndDip() throws {
    var scenario = try noiselessScenario("figure8")
    scenario.magneticField = MagneticFieldModel(strength: 48, dip: 65)
    let trajectory = ScenarioTrajectory(scenario: scenario)
    for sample in try simulate(scenario) {
      let field = sample.magnetometer!
      XCTAssertEqual(field.length, 48, accuracy: 1e-9)
      // Down in the sensor frame at the instant the field was read.
      let down = sensedState(scenario, trajectory, at: sample.timestamp).earthFromSensor.conjugate
        .act(
          on: SIMD3(0, 0, -1))
      XCTAssertEqual(
        Double.asin(field.normalized.dot(down)) * Units.degreesPerRadian, 65, accuracy: 1e-6)
    }
    // Face up with +x north (the identity attitude), the device axes read the field's NWU
    // components.
    let flat = try simulate(try noiselessScenario("flat", duration: 0.1))
    let d = 60 * Units.radiansPerDegree
    assertVectorsEqual(
      flat[0].magnetometer, SIMD3(50 * Double.cos(d), 0, -50 * Double.sin(d)), accuracy: 1e-12)
  }

  func testBarometerFollowsTheStandardAtmosphere() throws {
    XCTAssertEqual(StandardAtmosphere.pressure(atAltitude: 0), 101.325, accuracy: 1e-12)
    // ISA table values: 89.875 kPa at 1000 m, 79.495 kPa at 2000 m.
    XCTAssertEqual(StandardAtmosphere.pressure(atAltitude: 1000), 89.875, accuracy: 0.005)
    XCTAssertEqual(StandardAtmosphere.pressure(atAltitude: 2000), 79.495, accuracy: 0.005)
    XCTAssertEqual(StandardAtmosphere.altitude(atPressure: 89.875), 1000, accuracy: 0.5)

    let scenario = Scenario(
      name: "lift",
      segments: [
        .rest(duration: 1), .translate(displacement: SIMD3(0, 0, 30), duration: 20),
        .rest(duration: 1),
      ],
      altitude: 200, noise: .noiseless)
    let samples = try simulate(scenario)
    let first = samples.first!.pressure!
    let last = samples.last!.pressure!
    XCTAssertEqual(first, StandardAtmosphere.pressure(atAltitude: 200), accuracy: 1e-12)
    XCTAssertEqual(last, StandardAtmosphere.pressure(atAltitude: 230), accuracy: 1e-12)
    // Near sea level the pressure falls by about 12 Pa per metre: 30 m ≈ 0.35 kPa.
    XCTAssertEqual(first - last, 0.353, accuracy: 0.01)
    for k in 1..<samples.count {
      XCTAssertLessThanOrEqual(samples[k].pressure!, samples[k - 1].pressure!)
    }
  }

  func testTapIsASpikeAlongPlusX() throws {
    var stream = SimulatedSensorStream(scenario: try noiselessScenario("tap"))
    let samples = try stream.collect()
    let tap = try XCTUnwrap(stream.events.first { $0.kind == .tap })
    let peak = samples.max { $0.accelerometer!.x < $1.accelerometer!.x }!
    XCTAssertTrue(
      tap.contains(peak.timestamp, tolerance: 0.01), "peak at \(peak.timestamp), tap \(tap)")
    // A real knock of a phone's edge on a palm reaches 3–6 g; the built-in one is about 5 g.
    XCTAssertGreaterThan(peak.accelerometer!.x, 3 * g)
    XCTAssertLessThan(peak.accelerometer!.x, 6 * g)
    // The slide back is four times gentler than the 50 m/s² knock (0.5 m/s² of slack).
    let trough = samples.map { $0.accelerometer!.x }.min()!
    XCTAssertGreaterThan(trough, -50.0 / 4 - 0.5)
    for sample in samples where sample.timestamp > tap.end + 0.2 || sample.timestamp < tap.start {
      assertVectorsEqual(sample.accelerometer, SIMD3(0, 0, g), accuracy: 1e-9)
    }
  }

  func testShakeIsVigorousAlongXThenRests() throws {
    var stream = SimulatedSensorStream(scenario: try noiselessScenario("shake"))
    let samples = try stream.collect()
    let shake = try XCTUnwrap(stream.events.first { $0.kind == .shake })
    XCTAssertEqual(shake.end - shake.start, 2, accuracy: 1e-9)
    let inside = samples.filter { shake.contains($0.timestamp) }
    XCTAssertGreaterThan(inside.map { Swift.abs($0.accelerometer!.x) }.max()!, 2 * g)
    XCTAssertLessThan(inside.map { Swift.abs($0.accelerometer!.y) }.max()!, 1e-9)
    for sample in samples where !shake.contains(sample.timestamp) {
      assertVectorsEqual(sample.accelerometer, SIMD3(0, 0, g), accuracy: 1e-9)
    }
  }

  func testFreeFallReadsNearZeroSpecificForce() throws {
    var stream = SimulatedSensorStream(scenario: try noiselessScenario("freefall"))
    let samples = try stream.collect()
    let fall = try XCTUnwrap(stream.events.first { $0.kind == .freeFall })
    XCTAssertEqual(fall.end - fall.start, 0.485, accuracy: 0.02)
    // After the 30 ms release the specific force is exactly zero until the catch.
    for sample in samples where sample.timestamp > fall.start + 0.02 && sample.timestamp < fall.end
    {
      XCTAssertLessThan(sample.accelerometer!.length, 1e-9, "at \(sample.timestamp)")
    }
    let last = samples.last!
    assertVectorsEqual(last.accelerometer, SIMD3(0, 0, g), accuracy: 1e-9)
    // Dropped about 1.2 m (½·g·0.5²) plus the catch.
    XCTAssertLessThan(last.groundTruth!.position!.z, -1.2)
    XCTAssertGreaterThan(last.groundTruth!.position!.z, -3)
  }

  func testWalkStepsAtTheCadence() throws {
    var stream = SimulatedSensorStream(scenario: try noiselessScenario("walk"))
    let samples = try stream.collect()
    let steps = stream.events.filter { $0.kind == .step }
    // 20 s at 1.8 Hz minus about one step in each 1 s ramp.
    XCTAssertEqual(Double(steps.count), 1.8 * 20, accuracy: 3)
    for pair in zip(steps, steps.dropFirst()) {
      XCTAssertEqual(pair.1.start - pair.0.start, 1 / 1.8, accuracy: 1e-9)
    }
    // Each step is a peak of upward kinematic acceleration.
    for step in steps {
      let inside = samples.filter { step.contains($0.timestamp) }
      let vertical = inside.map {
        $0.groundTruth!.earthFromSensor!.act(on: $0.groundTruth!.linearAcceleration!).z
      }
      XCTAssertGreaterThan(vertical.max()!, 2, "step at \(step.start)")
    }
    // Walked about 1.3 m/s × 19 s (the ramps lose half a second each).
    let travelled = samples.last!.groundTruth!.position!
    XCTAssertEqual(SIMD3(travelled.x, travelled.y, 0).length, 1.3 * 19, accuracy: 0.5)
  }

  func testDriveTurnsTheHeading() throws {
    let samples = try simulate(try noiselessScenario("drive"))
    let first = samples.first!.groundTruth!.earthFromSensor!
    let last = samples.last!.groundTruth!.earthFromSensor!
    // Turns of +90, −90 and +45 degrees leave the car 45° left of where it started.
    XCTAssertEqual(
      AttitudeAngles(last).yaw - AttitudeAngles(first).yaw, 45 * Units.radiansPerDegree,
      accuracy: 1e-9)
    XCTAssertEqual(AttitudeAngles(last).pitch, AttitudeAngles(first).pitch, accuracy: 1e-9)
    let distance = samples.last!.groundTruth!.position!.length
    XCTAssertGreaterThan(distance, 500)
  }
}

extension SimulatorPhysicsTests {
  func testFigure8TurnsTheFieldThroughManyDirections() throws {
    // A magnetometer calibration needs the field seen from many directions: every octant of the
    // sensor frame, and each axis both well above and well below zero.
    let samples = try simulate(try noiselessScenario("figure8"))
    var octants = Set<Int>()
    var lowest = SIMD3<Double>(repeating: .infinity)
    var highest = SIMD3<Double>(repeating: -.infinity)
    for sample in samples {
      let direction = sample.magnetometer!.normalized
      octants.insert(
        (direction.x > 0 ? 1 : 0) + (direction.y > 0 ? 2 : 0) + (direction.z > 0 ? 4 : 0))
      lowest = pointwiseMin(lowest, direction)
      highest = pointwiseMax(highest, direction)
    }
    XCTAssertEqual(octants.count, 8)
    for axis in 0..<3 {
      XCTAssertLessThan(lowest[axis], -0.6, "axis \(axis)")
      XCTAssertGreaterThan(highest[axis], 0.6, "axis \(axis)")
    }
  }
}

extension SimulatorPhysicsTests {
  func testOrientationAttitudesPointTheDocumentedAxes() {
    // Where the device's +x (right edge), +y (top edge) and +z (screen normal) point, in NWU.
    let north = SIMD3<Double>(1, 0, 0)
    let west = SIMD3<Double>(0, 1, 0)
    let up = SIMD3<Double>(0, 0, 1)
    let expected: [DeviceOrientationName: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)] = [
      .faceUp: (north, west, up), .faceDown: (-north, west, -up), .portrait: (north, up, -west),
      .portraitUpsideDown: (north, -up, west), .landscapeLeft: (up, -north, -west),
      .landscapeRight: (-up, north, -west),
    ]
    for (name, axes) in expected {
      let q = name.earthFromSensor
      assertVectorsEqual(q.act(on: SIMD3(1, 0, 0)), axes.0, accuracy: 1e-12, "\(name) x")
      assertVectorsEqual(q.act(on: SIMD3(0, 1, 0)), axes.1, accuracy: 1e-12, "\(name) y")
      assertVectorsEqual(q.act(on: SIMD3(0, 0, 1)), axes.2, accuracy: 1e-12, "\(name) z")
    }
  }
}
