// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath
import XCTest
import _MotionTestSupport

@testable import MotionSensors

/// Scenarios as data: the built-in set, names, JSON, validation and the stream's contract.
final class SimulatorScenarioTests: XCTestCase {
  func testBuiltInNamesCoverTheRequiredScenarios() {
    let required = [
      "flat", "faceUp", "faceDown", "portrait", "portraitUpsideDown", "landscapeLeft",
      "landscapeRight",
      "rotateX", "rotateY", "rotateZ", "figure8", "shake", "tap", "walk", "drive", "freefall",
      "tour",
      "walkPocket", "walkBackPocket", "walkBag", "run", "stairs", "lift", "escalator", "cycle",
      "commute", "carPark", "desk",
    ]
    XCTAssertEqual(Set(Scenario.builtInNames), Set(required))
    XCTAssertEqual(Scenario.builtInNames.count, Set(Scenario.builtInNames).count)
  }

  func testEveryBuiltInScenarioRunsToCompletion() throws {
    for name in Scenario.builtInNames {
      let scenario = try Scenario.named(name)
      XCTAssertEqual(scenario.name, name)
      XCTAssertNoThrow(try scenario.validate(), name)
      var stream = SimulatedSensorStream(scenario: scenario)
      XCTAssertEqual(stream.descriptor.name, "simulator:\(name)")
      XCTAssertEqual(stream.descriptor.nominalSampleRate, 100)
      XCTAssertTrue(stream.descriptor.hasGroundTruth)
      XCTAssertEqual(
        stream.descriptor.sensors,
        [.accelerometer, .gyroscope, .magnetometer, .barometer, .thermometer])
      let samples = try stream.collect()
      XCTAssertNil(try stream.next(), "\(name) ends")
      let duration = scenario.effectiveDuration
      XCTAssertEqual(samples.count, Int((duration * 100).rounded()), name)
      var previous = -Double.infinity
      for sample in samples {
        XCTAssertTrue(sample.isFinite, "\(name) at \(sample.timestamp)")
        XCTAssertGreaterThan(sample.timestamp, previous, name)
        XCTAssertLessThanOrEqual(sample.timestamp, duration, name)
        XCTAssertEqual(sample.sensors, stream.descriptor.sensors, name)
        let truth = try XCTUnwrap(sample.groundTruth)
        XCTAssertNotNil(truth.earthFromSensor)
        XCTAssertNotNil(truth.angularVelocity)
        XCTAssertNotNil(truth.gyroscopeBias)
        XCTAssertNotNil(truth.position)
        XCTAssertTrue(truth.position!.isFinite && truth.linearAcceleration!.isFinite, name)
        previous = sample.timestamp
      }
      XCTAssertFalse(stream.events.isEmpty, name)
      for event in stream.events {
        XCTAssertGreaterThanOrEqual(event.start, 0, "\(name) \(event)")
        XCTAssertLessThanOrEqual(event.start, event.end, "\(name) \(event)")
        XCTAssertLessThanOrEqual(event.end, duration + 1e-9, "\(name) \(event)")
      }
    }
  }

  func testEachScenarioAnnotatesItsSignatureEvent() throws {
    let expected: [String: ScenarioEvent.Kind] = [
      "shake": .shake, "tap": .tap, "walk": .step, "drive": .turn, "freefall": .freeFall,
      "figure8": .figure8, "rotateX": .rotation, "tour": .orientationChange,
    ]
    for (name, kind) in expected {
      let stream = try SimulatedSensorStream(named: name)
      XCTAssertTrue(stream.events.contains { $0.kind == kind }, "\(name) lacks a \(kind) event")
    }
  }

  func testUnknownNameListsTheValidNames() {
    XCTAssertThrowsError(try Scenario.named("moonwalk")) { error in
      guard case ScenarioError.unknownName(let name, let valid) = error else {
        return XCTFail("unexpected error \(error)")
      }
      XCTAssertEqual(name, "moonwalk")
      XCTAssertEqual(valid, Scenario.builtInNames)
      let message = "\(error)"
      XCTAssertTrue(message.contains("moonwalk"), message)
      for name in Scenario.builtInNames { XCTAssertTrue(message.contains(name), message) }
      XCTAssertEqual((error as? LocalizedError)?.errorDescription, message)
    }
    XCTAssertThrowsError(try SimulatedSensorStream(named: "nope"))
    // Names are matched regardless of case (handy on a command line).
    XCTAssertEqual(try Scenario.named("FREEFALL").name, "freefall")
  }

  func testJSONRoundTripOfEveryBuiltInScenario() throws {
    for name in Scenario.builtInNames {
      var scenario = try Scenario.named(name)
      scenario.seed = 0xDEAD_BEEF_CAFE_F00D  // beyond 2⁵³: must survive as an integer
      let data = try scenario.jsonData()
      let decoded = try JSONDecoder().decode(Scenario.self, from: data)
      XCTAssertEqual(decoded, scenario, name)
    }
    // Custom noise, thermometer off, quaternion and Euler attitudes, a finite range.
    var custom = Scenario(
      name: "custom",
      segments: [
        .moveTo(
          attitude: .quaternion(Quaternion(angle: 0.3, axis: SIMD3(1, 2, 3)).normalized),
          duration: 2),
        .moveTo(attitude: .eulerDegrees(roll: 10, pitch: 20, yaw: 30), duration: 1),
        .moveTo(attitude: .orientation(.portrait, yawDegrees: 45), duration: 1),
        .translate(displacement: SIMD3(1, 2, 3), duration: 2),
      ],
      duration: 3, temperature: nil)
    custom.noise.gyroscope.range = 10
    let decoded = try JSONDecoder().decode(Scenario.self, from: try custom.jsonData())
    XCTAssertEqual(decoded, custom)
    XCTAssertNil(decoded.temperature)
  }

  func testLoadsAHandWrittenScenarioWithDefaults() throws {
    let json = """
      {
        "name": "desk",
        "seed": 7,
        "noise": "noiseless",
        "magneticField": {"dip": 45},
        "segments": [
          {"type": "rest", "duration": 1},
          {"type": "moveTo", "attitude": "landscapeLeft"},
          {"type": "rotate", "axis": [0, 0, 1], "rate": 90, "duration": 2},
          {"type": "shake"},
          {"type": "tap", "axis": [-1, 0, 0]},
          {"type": "freeFall"},
          {"type": "walk", "duration": 4},
          {"type": "drive", "duration": 12, "turns": [{"start": 4, "angle": -30}]},
          {"type": "figure8", "duration": 6},
          {"type": "translate", "displacement": [0, 0, 2]}
        ]
      }
      """
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "simulator-\(UUID()).json")
    try Data(json.utf8).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    let scenario = try Scenario.load(contentsOf: url)
    XCTAssertEqual(scenario.name, "desk")
    XCTAssertEqual(scenario.seed, 7)
    XCTAssertEqual(scenario.sampleRate, 100)
    XCTAssertEqual(scenario.noise, .noiseless)
    XCTAssertEqual(scenario.temperature, 25)
    XCTAssertEqual(scenario.magneticField, MagneticFieldModel(strength: 50, dip: 45))
    XCTAssertEqual(
      scenario.segments[1], .moveTo(attitude: .orientation(.landscapeLeft), duration: 1.5))
    XCTAssertEqual(
      scenario.segments[3], .shake(axis: SIMD3(1, 0, 0), amplitude: 0.03, frequency: 4, duration: 2)
    )
    XCTAssertEqual(scenario.segments.count, 10)
    let samples = try simulate(scenario)
    XCTAssertEqual(samples.count, Int((scenario.segmentsDuration * 100).rounded()))
    XCTAssertTrue(samples.allSatisfy(\.isFinite))
    // Having moved to landscape left (by t = 2.5 s, where the rotation starts) the device's +x
    // points up. Sample 250 reads the middle of the interval that ends at 2.5 s, 5 ms before the
    // move ends, where the smooth move is within 1e-6 rad of its end: 1e-4 m/s² allows that.
    let atRest = samples[250]
    assertVectorsEqual(atRest.accelerometer, SIMD3(Units.standardGravity, 0, 0), accuracy: 1e-4)
  }

  func testMalformedAndInvalidScenariosAreReportedClearly() throws {
    func decodeError(_ json: String) -> String {
      let url = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID()).json")
      try? Data(json.utf8).write(to: url)
      defer { try? FileManager.default.removeItem(at: url) }
      do {
        _ = try Scenario.load(contentsOf: url)
        return "no error"
      } catch {
        return "\(error)"
      }
    }
    let unknownType = decodeError(#"{"segments": [{"type": "moonwalk"}]}"#)
    XCTAssertTrue(unknownType.contains("moonwalk") && unknownType.contains("figure8"), unknownType)
    let unknownOrientation = decodeError(
      #"{"segments": [{"type": "moveTo", "attitude": "sideways"}]}"#)
    XCTAssertTrue(
      unknownOrientation.contains("sideways") && unknownOrientation.contains("faceDown"),
      unknownOrientation)
    let unknownPreset = decodeError(#"{"noise": "perfect", "segments": [{"type": "rest"}]}"#)
    XCTAssertTrue(
      unknownPreset.contains("perfect") && unknownPreset.contains("noiseless"), unknownPreset)
    let badRate = decodeError(#"{"sampleRate": 0, "segments": [{"type": "rest"}]}"#)
    XCTAssertTrue(badRate.contains("sampleRate"), badRate)
    let empty = decodeError(#"{"segments": []}"#)
    XCTAssertTrue(empty.contains("no length"), empty)

    // An invalid scenario handed straight to the stream fails on the first read.
    var stream = SimulatedSensorStream(
      scenario: Scenario(name: "broken", segments: [.rest(duration: 1)], sampleRate: -5))
    XCTAssertThrowsError(try stream.next())
  }

  func testTourRepeatsToFillALongerDuration() throws {
    var scenario = try noiselessScenario("tour")
    let pass = scenario.segmentsDuration
    scenario.duration = 2.5 * pass
    var stream = SimulatedSensorStream(scenario: scenario)
    let samples = try stream.collect()
    XCTAssertEqual(samples.count, Int((2.5 * pass * 100).rounded()))
    XCTAssertEqual(stream.events.filter { $0.kind == .shake }.count, 2)
    // The second pass reads exactly like the first.
    let offset = Int((pass * 100).rounded())
    for k in stride(from: 0, to: offset, by: 37) {
      assertVectorsEqual(
        samples[k + offset].accelerometer, samples[k].accelerometer!, accuracy: 1e-9, "sample \(k)")
    }
    // A non-repeating scenario rests after its last segment instead.
    var shake = try noiselessScenario("shake")
    shake.duration = 20
    let tail = try simulate(shake).suffix(100)
    for sample in tail {
      assertVectorsEqual(sample.accelerometer, SIMD3(0, 0, Units.standardGravity), accuracy: 1e-9)
    }
  }

  func testSeedOverrideAndDescriptorMetadata() throws {
    let stream = SimulatedSensorStream(scenario: try Scenario.named("tap"), seed: 99)
    XCTAssertEqual(stream.seed, 99)
    XCTAssertEqual(stream.descriptor.metadata["seed"], "99")
    XCTAssertEqual(stream.descriptor.metadata["noise"], "phone")
    var noThermometer = try Scenario.named("tap")
    noThermometer.temperature = nil
    let samples = try simulate(noThermometer)
    XCTAssertNil(samples[0].temperature)
    XCTAssertFalse(
      SimulatedSensorStream(scenario: noThermometer).descriptor.sensors.contains(.thermometer))
  }

  func testPlaysThroughAStreamPlayerOnAVirtualClock() throws {
    let clock = VirtualClock()
    // Noiseless, so the timestamps carry no jitter and the counts below are exact.
    let player = StreamPlayer(
      SimulatedSensorStream(scenario: try noiselessScenario("tap")), pacing: .virtual(clock))
    XCTAssertEqual(player.name, "simulator:tap")
    let received = Locked<[MotionSample]>([])
    let finished = Locked(false)
    let subscription = player.subscribe(requestedSampleRate: 100) { event in
      switch event {
      case .sample(let sample): received.withLock { $0.append(sample) }
      case .finished: finished.withLock { $0 = true }
      case .failure(let failure): XCTFail("\(failure)")
      }
    }
    clock.advance(by: 1.0)
    XCTAssertEqual(received.withLock { $0.count }, 101)  // t = 0 … 1.00 inclusive
    clock.advance(by: 5)
    XCTAssertEqual(received.withLock { $0.count }, 300)
    XCTAssertTrue(finished.withLock { $0 })
    subscription.cancel()
  }
}

extension SimulatorScenarioTests {
  func testValidationRejectsUnusableNumbers() {
    func problem(_ change: (inout Scenario) -> Void) -> String? {
      var scenario = Scenario(name: "probe", segments: [.rest(duration: 1)])
      change(&scenario)
      do {
        try scenario.validate()
        return nil
      } catch {
        return "\(error)"
      }
    }
    XCTAssertNil(problem { _ in })
    XCTAssertNotNil(problem { $0.duration = .infinity })
    XCTAssertNotNil(problem { $0.duration = 2 * Scenario.maximumDuration })
    XCTAssertNotNil(
      problem {
        $0.segments = [.shake(axis: SIMD3(1, 0, 0), amplitude: .nan, frequency: 4, duration: 2)]
      })
    XCTAssertNotNil(
      problem {
        $0.segments = [
          .tap(axis: SIMD3(1, 0, 0), peakAcceleration: 30, pulseDuration: 0.1, duration: 0.2)
        ]
      })
    XCTAssertNotNil(
      problem { $0.segments = [.freeFall(dropDuration: 1, catchDuration: 0.5, duration: 1)] })
    XCTAssertNotNil(problem { $0.magneticField.dip = 120 })
    XCTAssertNotNil(problem { $0.noise.gyroscope.noiseDensity = -1 })
    XCTAssertNotNil(problem { $0.noise.accelerometer.range = 0 })
    XCTAssertNotNil(problem { $0.noise.timestampJitter = .nan })
    XCTAssertNotNil(problem { $0.altitude = 20_000 })
    let message = problem { $0.noise.barometer.quantization = -1 } ?? ""
    XCTAssertTrue(message.contains("barometer") && message.contains("probe"), message)
  }

  func testTrajectoryOfAnInvalidScenarioStillTerminates() {
    // ScenarioTrajectory is public and does not validate: it must not hang or crash on nonsense.
    var scenario = Scenario(
      name: "nonsense", segments: [.rest(duration: .infinity), .rest(duration: -1)], repeats: true)
    scenario.duration = 5
    let trajectory = ScenarioTrajectory(scenario: scenario)
    XCTAssertEqual(trajectory.duration, 5)
    XCTAssertEqual(trajectory.state(at: 2).acceleration, .zero)
    scenario.duration = .infinity
    XCTAssertEqual(ScenarioTrajectory(scenario: scenario).duration, 0)
  }
}

extension SimulatorScenarioTests {
  func testTheDocumentedExampleLoads() throws {
    // The JSON example in Scenario's documentation, verbatim.
    let json = """
      {
        "name": "desk-lift",
        "sampleRate": 100,
        "duration": 20,
        "seed": 42,
        "initialAttitude": "faceUp",
        "altitude": 350,
        "temperature": 22,
        "magneticField": {"strength": 48, "dip": 65},
        "noise": "phone",
        "repeats": false,
        "segments": [
          {"type": "rest", "duration": 2},
          {"type": "moveTo", "attitude": "portrait", "duration": 1.5},
          {"type": "translate", "displacement": [0, 0, 1], "duration": 3},
          {"type": "shake", "axis": [1, 0, 0], "amplitude": 0.03, "frequency": 4, "duration": 2},
          {"type": "tap", "axis": [1, 0, 0], "peakAcceleration": 30}
        ]
      }
      """
    let scenario = try JSONDecoder().decode(Scenario.self, from: Data(json.utf8))
    XCTAssertNoThrow(try scenario.validate())
    XCTAssertEqual(scenario.seed, 42)
    XCTAssertEqual(scenario.effectiveDuration, 20)
    var stream = SimulatedSensorStream(scenario: scenario)
    let samples = try stream.collect()
    XCTAssertEqual(samples.count, 2000)
    XCTAssertEqual(samples.last!.groundTruth!.position!.z, 1, accuracy: 1e-9)
    XCTAssertEqual(
      stream.events.map(\.kind), [.rest, .orientationChange, .translation, .shake, .tap, .rest])
  }
}
