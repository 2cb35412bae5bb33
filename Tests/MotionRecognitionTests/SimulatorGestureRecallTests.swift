// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionEvaluation
import MotionFusion
import MotionMath
import MotionSensors
import XCTest
import _MotionTestSupport

@testable import MotionRecognition

/// Gesture recall on scripted simulator sequences with known event times.
///
/// Each sequence is a random script (seeded) of shakes, knocks, sharp 15–30 cm moves, drops and
/// turns to a new orientation, separated by rests, played by the sensor simulator with its phone
/// noise model. The recognisers see Core Motion's values two ways: the raw accelerometer only, and
/// with gravity and user acceleration from MotionFusion's attitude (as `CMDeviceMotion` carries).
/// A detection counts when it falls in the event's window with the right details (tap axis and
/// sign, move direction, orientation reached). Run with `MOTION_RECOGNITION_PRINT=1` to print the
/// table.
final class SimulatorGestureRecallTests: XCTestCase {
  enum Gesture: String, CaseIterable {
    case shake, tap, move, freeFall, orientation
  }

  struct Expected {
    var gesture: Gesture
    var start: Double
    var end: Double
    /// Tap: "x-" style axis and Core Motion sign; move: direction; orientation: UIKit name.
    var detail: String
  }

  /// A random script and the events it should produce.
  static func script(seed: UInt64, gestures: Int) -> Scenario {
    var rng = SplitMix64(seed: seed)
    var segments: [ScenarioSegment] = [.rest(duration: 2)]
    let axes: [SIMD3<Double>] = [SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)]
    let orientations: [DeviceOrientationName] = [
      .portrait, .portraitUpsideDown, .landscapeLeft, .landscapeRight, .faceUp, .faceDown,
    ]
    for _ in 0..<gestures {
      let sign: Double = Bool.random(using: &rng) ? 1 : -1
      let axis = axes[Int.random(in: 0..<3, using: &rng)]
      switch Gesture.allCases[Int.random(in: 0..<Gesture.allCases.count, using: &rng)] {
      case .shake:
        segments.append(
          .shake(
            axis: axis, amplitude: Double.random(in: 0.025...0.045, using: &rng),
            frequency: Double.random(in: 3.5...5.5, using: &rng),
            duration: Double.random(in: 1.5...2.5, using: &rng)))
      case .tap:
        segments.append(
          .tap(
            axis: sign * axis, peakAcceleration: Double.random(in: 20...40, using: &rng),
            pulseDuration: Double.random(in: 0.02...0.04, using: &rng), duration: 1.5))
      case .move:
        segments.append(
          .translate(
            displacement: sign * Double.random(in: 0.15...0.3, using: &rng) * axis,
            duration: Double.random(in: 0.3...0.5, using: &rng)))
      case .freeFall:
        segments.append(
          .freeFall(
            dropDuration: Double.random(in: 0.3...0.6, using: &rng), catchDuration: 0.3, duration: 2
          ))
      case .orientation:
        segments.append(
          .moveTo(
            attitude: .orientation(orientations[Int.random(in: 0..<6, using: &rng)]), duration: 1.5)
        )
      }
      segments.append(.rest(duration: Double.random(in: 1.5...2.5, using: &rng)))
    }
    return Scenario(name: "gestures-\(seed)", segments: segments, seed: seed)
  }

  struct Played {
    var raw: [MotionInput] = []
    var fused: [MotionInput] = []
    var expected: [Expected] = []
    var duration = 0.0
  }

  static func play(_ scenario: Scenario) throws -> Played {
    var stream = SimulatedSensorStream(scenario: scenario)
    var played = Played()
    var estimator = DeviceMotionEstimator(samplePeriod: 1 / scenario.sampleRate)
    var truth: [(time: Double, attitude: Quaternion)] = []
    while let sample = try stream.next() {
      guard let accelerometer = sample.accelerometer, let gyroscope = sample.gyroscope else {
        continue
      }
      let acceleration = Units.coreMotionAcceleration(fromSpecificForce: accelerometer)
      played.raw.append(MotionInput(timestamp: sample.timestamp, acceleration: acceleration))
      estimator.update(
        timestamp: sample.timestamp, gyroscope: gyroscope, accelerometer: accelerometer,
        magnetometer: nil)
      let attitude = estimator.earthFromSensor6D
      let gravity = attitude.conjugate.act(on: SIMD3(0, 0, -1))
      played.fused.append(
        MotionInput(
          timestamp: sample.timestamp, acceleration: acceleration, gravity: gravity,
          userAcceleration: acceleration - gravity, attitude: attitude))
      if let attitude = sample.groundTruth?.earthFromSensor {
        truth.append((sample.timestamp, attitude))
      }
    }
    played.duration = (played.raw.last?.timestamp ?? 0) - (played.raw.first?.timestamp ?? 0)
    func attitude(at time: Double) -> Quaternion {
      truth.first(where: { $0.time >= time })?.attitude ?? .identity
    }
    for event in stream.events {
      switch event.kind {
      case .shake:
        played.expected.append(
          Expected(gesture: .shake, start: event.start, end: event.end, detail: ""))
      case .tap:
        // The knock's push axis in sensor coordinates is the scenario's; recover it from the
        // segment list below instead (events carry no axis).
        played.expected.append(
          Expected(gesture: .tap, start: event.start, end: event.end, detail: ""))
      case .translation:
        played.expected.append(
          Expected(gesture: .move, start: event.start, end: event.end, detail: ""))
      case .freeFall:
        played.expected.append(
          Expected(gesture: .freeFall, start: event.start, end: event.end, detail: ""))
      case .orientationChange:
        played.expected.append(
          Expected(
            gesture: .orientation, start: event.start, end: event.end, detail: event.detail ?? ""))
      default:
        break
      }
    }
    // Fill in tap axes/signs and move directions from the segments, in order.
    var taps = scenario.segments.compactMap { segment -> SIMD3<Double>? in
      if case .tap(let axis, _, _, _) = segment { return axis }
      return nil
    }.makeIterator()
    var moves = scenario.segments.compactMap { segment -> SIMD3<Double>? in
      if case .translate(let displacement, _) = segment { return displacement }
      return nil
    }.makeIterator()
    for index in played.expected.indices {
      switch played.expected[index].gesture {
      case .tap:
        // Core Motion's sign is opposite to the push.
        let push = taps.next() ?? .zero
        let axisIndex = abs(push.x) > 0.5 ? 0 : abs(push.y) > 0.5 ? 1 : 2
        played.expected[index].detail = "\(axisIndex)\(push[axisIndex] > 0 ? "-" : "+")"
      case .move:
        let displacement = moves.next() ?? .zero
        let inDevice = attitude(at: played.expected[index].start).conjugate.act(on: displacement)
        played.expected[index].detail = MovementDirection(closestTo: inDevice)?.rawValue ?? ""
      default:
        break
      }
    }
    return played
  }

  /// Detections of `gesture` as (time, detail), in the same detail format as ``Expected``.
  static func detect(_ gesture: Gesture, in inputs: [MotionInput]) -> [(Double, String)] {
    switch gesture {
    case .shake:
      return inputs.motionEvents(detectedBy: ShakeDetector()).filter { $0.phase == .began }.map {
        ($0.timestamp, "")
      }
    case .tap:
      return inputs.motionEvents(detectedBy: TapDetector()).map {
        ($0.timestamp, "\($0.axis.rawValue)\($0.sign < 0 ? "-" : "+")")
      }
    case .move:
      return inputs.motionEvents(detectedBy: MovementDirectionDetector()).map {
        ($0.timestamp, $0.direction.rawValue)
      }
    case .freeFall:
      return inputs.motionEvents(detectedBy: FreeFallDetector()).filter { $0.phase == .began }.map {
        ($0.timestamp, "")
      }
    case .orientation:
      return inputs.motionEvents(detectedBy: OrientationClassifier()).map {
        ($0.timestamp, $0.orientation.description)
      }
    }
  }

  /// How late after an event's end a detection may come, seconds: a move is reported once it has
  /// stopped; an orientation once it has settled.
  static func lateness(_ gesture: Gesture) -> Double {
    switch gesture {
    case .shake: return 0
    case .tap: return 0.1
    case .move: return 0.6
    case .freeFall: return 0
    case .orientation: return 0.3
    }
  }

  /// Matches detections to expected events with equal details; returns per-gesture reports.
  static func score(_ played: Played, inputs: [MotionInput]) -> [Gesture: GestureEvaluation.Report]
  {
    var reports: [Gesture: GestureEvaluation.Report] = [:]
    for gesture in Gesture.allCases {
      let expected = played.expected.filter { $0.gesture == gesture }
      // The first orientation (from unknown at the start) is not a change of the script's.
      let detections = detect(gesture, in: inputs).filter { $0.0 >= 1 }
      var report = GestureEvaluation.Report()
      report.duration = played.duration
      report.expectedCount = expected.count
      var used = [Bool](repeating: false, count: detections.count)
      for event in expected {
        // An orientation change to the current orientation produces no change to detect.
        if let index = detections.indices.first(where: {
          !used[$0] && detections[$0].0 >= event.start - 0.05
            && detections[$0].0 <= event.end + lateness(gesture)
            && detections[$0].1 == event.detail
        }) {
          used[index] = true
          report.matchedCount += 1
        }
      }
      report.falsePositiveCount = used.filter { !$0 }.count
      reports[gesture] = report
    }
    return reports
  }

  func testRecallOnScriptedSequences() throws {
    var rawTotals: [Gesture: GestureEvaluation.Report] = [:]
    var fusedTotals: [Gesture: GestureEvaluation.Report] = [:]
    var unchangedOrientations = 0
    for seed in UInt64(1)...16 {
      var played = try Self.play(Self.script(seed: seed, gestures: 12))
      // A turn to the orientation the device already has changes nothing: not an event.
      var previous = "faceUp"
      played.expected.removeAll { event in
        guard event.gesture == .orientation else { return false }
        defer { previous = event.detail }
        if event.detail == previous { unchangedOrientations += 1 }
        return event.detail == previous
      }
      for (gesture, report) in Self.score(played, inputs: played.raw) {
        rawTotals[gesture, default: .init()].merge(report)
      }
      for (gesture, report) in Self.score(played, inputs: played.fused) {
        fusedTotals[gesture, default: .init()].merge(report)
      }
    }
    let verbose = ProcessInfo.processInfo.environment["MOTION_RECOGNITION_PRINT"] == "1"
    for gesture in Gesture.allCases {
      let raw = rawTotals[gesture]!
      let fused = fusedTotals[gesture]!
      if verbose {
        print("recall \(gesture.rawValue): raw accelerometer \(raw); device motion \(fused)")
      }
      XCTAssertGreaterThan(fused.expectedCount, 10, "\(gesture): too few scripted events")
      XCTAssertGreaterThanOrEqual(fused.recall, 0.95, "\(gesture) with device motion: \(fused)")
      if gesture != .orientation {  // the classifier needs gravity, not raw jolts
        XCTAssertGreaterThanOrEqual(
          raw.recall, 0.95, "\(gesture) with the raw accelerometer: \(raw)")
      }
    }
  }
}
