// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath
import XCTest

@testable import MotionSensors

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Hostile scenarios from a review: one segment whose numbers are outside any physical range used
/// to crash or hang the simulator, because only the total length was capped. A drive of 1e300 s
/// trapped converting its knot count to an Int (1e8 s allocated 32 GB of knots); a walk at 1e9
/// steps/s looped once per step while laying out its events; a repeating scenario of 1 ms rests
/// over a day laid out 86 million segments; and a walk at −1 steps/s built in code (the layout
/// does not validate) looped forever. Each is now refused at load with an error naming the field,
/// and the layout itself is bounded for scenarios that skip validation.
final class SimulatorHostileScenarioTests: XCTestCase {
  /// Loads `json` from a file; the error's description, or `nil` when it loads.
  private func loadError(_ json: String) throws -> String? {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(json, to: "scenario.json")
    do {
      _ = try Scenario.load(contentsOf: url)
      return nil
    } catch {
      return "\(error)"
    }
  }

  /// A drive of 1e300 s inside a 10 s scenario passed validation (only the total was capped) and
  /// trapped in `Int((duration / 0.1).rounded(.up))` when laid out. It is refused at load, naming
  /// the segment's duration and its limit.
  func testADriveOf1e300SecondsIsRefusedAtLoad() throws {
    let message = try XCTUnwrap(
      try loadError(#"{"duration": 10, "segments": [{"type": "drive", "duration": 1e300}]}"#),
      "loaded")
    XCTAssertTrue(message.contains("segment 0 (drive)"), message)
    XCTAssertTrue(message.contains("duration must be 0…86400 s"), message)
  }

  /// A walk at 1e9 steps/s passed validation (any positive cadence did) and laid out 1e11 step
  /// events. It is refused at load, naming the cadence and its range.
  func testAWalkAtABillionStepsPerSecondIsRefusedAtLoad() throws {
    let message = try XCTUnwrap(
      try loadError(#"{"segments": [{"type": "walk", "cadence": 1e9, "duration": 100}]}"#),
      "loaded")
    XCTAssertTrue(message.contains("segment 0 (walk)"), message)
    XCTAssertTrue(message.contains("cadence must be 0.5…5.0 steps/s"), message)
  }

  /// A repeating day of 1 ms rests would lay out 86.4 million segments; it is refused at load
  /// (the limit is ``Scenario/maximumSegmentCount``), and a trajectory built from it without
  /// validation stops after that many segments and rests for the remaining time.
  func testARepeatingDayOfMillisecondRestsIsRefusedAndItsLayoutIsBounded() throws {
    let json =
      #"{"repeats": true, "duration": 86400, "segments": [{"type": "rest", "duration": 0.001}]}"#
    let message = try XCTUnwrap(try loadError(json), "loaded")
    XCTAssertTrue(message.contains("the limit is 100000 segments"), message)

    let scenario = try JSONDecoder().decode(Scenario.self, from: Data(json.utf8))
    let started = ProcessInfo.processInfo.systemUptime
    let trajectory = ScenarioTrajectory(scenario: scenario)
    XCTAssertLessThan(ProcessInfo.processInfo.systemUptime - started, 30, "bounded layout")
    XCTAssertEqual(trajectory.duration, 86_400)
    XCTAssertLessThanOrEqual(trajectory.events.count, Scenario.maximumSegmentCount + 1)
    // The rest filling the remaining time reaches the end.
    let last = try XCTUnwrap(trajectory.events.last)
    XCTAssertEqual(last.kind, .rest)
    XCTAssertEqual(last.end, 86_400, accuracy: 1e-6)
  }

  /// A walk at −1 steps/s built in code: the stream's layout used to loop forever making step
  /// events (−1 s per step never passes the segment's end). The segment is now skipped by the
  /// layout, the stream is created, and its first read throws the validation error.
  func testAWalkAtANegativeCadenceBuiltInCodeTerminates() {
    var stream = SimulatedSensorStream(
      scenario: Scenario(name: "x", segments: [.walk(cadence: -1, speed: 1, duration: 10)]))
    XCTAssertFalse(stream.events.contains { $0.kind == .step })
    XCTAssertThrowsError(try stream.next()) { error in
      XCTAssertTrue("\(error)".contains("cadence"), "\(error)")
    }
  }

  /// The same hostile segments built in code (no validation before the layout) neither trap nor
  /// allocate by their values: the layout skips them and fills the scenario with rest.
  func testHostileSegmentsBuiltInCodeAreSkippedByTheLayout() {
    let segments: [ScenarioSegment] = [
      .drive(speed: 12, duration: 1e300, vibration: 0.8, ramp: 4, turns: []),
      .drive(speed: 12, duration: 1e8, vibration: 0.8, ramp: 4, turns: []),
      .walk(cadence: 1e9, speed: 1.3, duration: 100),
      .gait(Gait(cadence: -2), duration: 10),
      .cycle(cadence: 1e12, speed: 5, duration: 1e6),
    ]
    for segment in segments {
      let scenario = Scenario(name: "hostile", segments: [segment], duration: 5)
      XCTAssertThrowsError(try scenario.validate(), "\(segment)")
      let trajectory = ScenarioTrajectory(scenario: scenario)
      XCTAssertEqual(trajectory.duration, 5)
      XCTAssertEqual(trajectory.events.map(\.kind), [.rest], "\(segment)")
      XCTAssertEqual(trajectory.state(at: 2).acceleration, .zero)
    }
  }

  /// A valid drive longer than an hour is integrated at wider spacing instead of more knots, and
  /// the knot count is bounded for any duration (the start alone for a non-finite one).
  func testDriveKnotsAreBounded() {
    let parameters = TrajectorySegment.DriveParameters(
      forward: SIMD3(1, 0, 0), left: SIMD3(0, 1, 0), speed: 12, vibration: 0, ramp: 4, turns: [],
      knotSpacing: TrajectorySegment.knotSpacing(forDriveOf: 86_400))
    XCTAssertEqual(
      TrajectorySegment.integrateDrive(parameters, duration: 86_400).count,
      TrajectorySegment.maximumKnotCount)
    XCTAssertEqual(
      TrajectorySegment.integrateDrive(parameters, duration: 1e300).count,
      TrajectorySegment.maximumKnotCount)
    XCTAssertEqual(TrajectorySegment.integrateDrive(parameters, duration: .nan).count, 1)
    // An hour-long valid drive still lays out and plays: 10 s of it, sampled.
    let drive = Scenario(
      name: "long-drive",
      segments: [.drive(speed: 12, duration: 7200, vibration: 0.8, ramp: 4, turns: [])],
      duration: 10, noise: .noiseless)
    XCTAssertNoThrow(try drive.validate())
    XCTAssertEqual((try? simulate(drive))?.count, 1000)
  }

  /// Every field outside its documented range is refused with its name; the built-in scenarios
  /// all lie inside the ranges (checked by `testEveryBuiltInScenarioRunsToCompletion`).
  func testEachFieldOutsideItsRangeIsNamed() {
    let cases: [(ScenarioSegment, String)] = [
      (.rest(duration: 90_000), "duration"),
      (.rotate(axis: SIMD3(0, 0, 1), rate: 1e6, duration: 10, ramp: 0.5), "rate"),
      (.translate(displacement: SIMD3(0, 0, 1e7), duration: 2), "displacement"),
      (.shake(axis: SIMD3(1, 0, 0), amplitude: 5, frequency: 4, duration: 2), "amplitude"),
      (.shake(axis: SIMD3(1, 0, 0), amplitude: 0.03, frequency: 1e4, duration: 2), "frequency"),
      (.tap(axis: SIMD3(1, 0, 0), peakAcceleration: 1e5, pulseDuration: 0.03, duration: 1), "peak"),
      (.walk(cadence: 1.8, speed: 1e4, duration: 10), "speed"),
      (.gait(Gait(climb: 1e5), duration: 10), "climb"),
      (.ride(.lift, climb: -1e5, duration: 10), "climb"),
      (.cycle(cadence: 50, speed: 5, duration: 30), "cadence"),
      (.drive(speed: 1e4, duration: 30, vibration: 0.8, ramp: 4, turns: []), "speed"),
      (.drive(speed: 12, duration: 30, vibration: 1e3, ramp: 4, turns: []), "vibration"),
      (
        .drive(
          speed: 12, duration: 30, vibration: 0.8, ramp: 4,
          turns: [DriveTurn(start: 1, angle: 90, duration: 1e9)]), "turns[0].duration"
      ),
      (
        .drive(
          speed: 12, duration: 30, vibration: 0.8, ramp: 4,
          turns: Array(repeating: DriveTurn(start: 1, angle: 1), count: 101)), "turns"
      ),
      (.freeFall(dropDuration: 100, catchDuration: 0.3, duration: 200), "dropDuration"),
      (.figure8(period: 1e6, duration: 12), "period"),
    ]
    for (segment, field) in cases {
      let scenario = Scenario(name: "range", segments: [segment], duration: 10)
      XCTAssertThrowsError(try scenario.validate(), "\(segment)") { error in
        XCTAssertTrue("\(error)".contains(field), "\(error) should name \(field)")
      }
    }
  }

  /// `simulator:/dev/zero` read the device whole (memory grew without bound) and a FIFO without a
  /// writer blocked forever: a scenario is now read only from a regular file of at most
  /// ``Scenario/maximumFileSize`` bytes, and anything else is refused with a clear error before it
  /// is opened.
  func testScenarioFilesAreReadOnlyFromBoundedRegularFiles() throws {
    func error(loading url: URL) -> String? {
      do {
        _ = try Scenario.load(contentsOf: url)
        return nil
      } catch let error as ScenarioError {
        return "\(error)"
      } catch {
        return "not a ScenarioError: \(error)"
      }
    }
    let device = try XCTUnwrap(error(loading: URL(fileURLWithPath: "/dev/zero")), "loaded")
    XCTAssertTrue(device.contains("zero") && device.contains("a character device"), device)
    XCTAssertTrue(device.contains("scenarios are read from regular files only"), device)

    let folder = try RecordingFixtureFolder()
    let fifo = folder.url.appendingPathComponent("scenario.json")
    XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
    let pipe = try XCTUnwrap(error(loading: fifo), "loaded")
    XCTAssertTrue(pipe.contains("a pipe (FIFO)"), pipe)

    let large = folder.url.appendingPathComponent("large.json")
    try Data(count: Scenario.maximumFileSize + 1).write(to: large)
    let tooLarge = try XCTUnwrap(error(loading: large), "loaded")
    XCTAssertTrue(tooLarge.contains("larger than \(Scenario.maximumFileSize) bytes"), tooLarge)

    let missing = try XCTUnwrap(error(loading: folder.url.appendingPathComponent("none.json")))
    XCTAssertTrue(missing.contains("no such file"), missing)
  }
}
