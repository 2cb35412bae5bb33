// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest

@testable import MotionEvaluation

/// `motionctl steps` counts while it reads (`StepRecording.count`): the same steps, distance and
/// floors as a recording loaded whole.
final class StepRecordingStreamingTests: XCTestCase {
  /// The simulated stairs (steps and a barometer: two floors up, two down) and lift, written to a
  /// recording and counted both ways.
  func testCountingWhileReadingEqualsCountingALoadedRecording() throws {
    let folder = try temporaryFolder("step-streaming")
    for scenario in ["stairs", "lift"] {
      var stream = SimulatedSensorStream(scenario: try Scenario.named(scenario), seed: 3)
      let url = folder.appendingPathComponent("\(scenario).csv")
      let writer = try RecordingWriter(url: url, descriptor: stream.descriptor)
      while let sample = try stream.next() { try writer.append(sample) }
      try writer.finish()

      let recording = try StepRecording.load(url)
      XCTAssertTrue(recording.hasPressure, scenario)
      let loaded = StepCount(
        times: recording.times, accelerations: recording.accelerations, userHeight: 1.8)
      let loadedFloors = try XCTUnwrap(loaded.floors(pressures: recording.pressures))

      let (streamed, streamedFloors) = try StepRecording.count(url, userHeight: 1.8)
      XCTAssertGreaterThan(streamed.stepTimes.count, 20, scenario)
      XCTAssertEqual(streamed, loaded, scenario)
      XCTAssertEqual(streamedFloors?.ascended, loadedFloors.ascended, scenario)
      XCTAssertEqual(streamedFloors?.descended, loadedFloors.descended, scenario)
    }
  }

  /// A barometer whose every reading the floor counter refuses (outside 1–200 kPa: here Pa
  /// under a kPa heading) gives no floors, as none does, whichever way the recording is counted.
  /// Counted while read it was `nil`, loaded whole 0 up and 0 down, though the two are to agree.
  func testEveryPressureRefusedGivesNoFloorsBothWays() throws {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("step-refused-\(UUID().uuidString).csv")
    defer { try? FileManager.default.removeItem(at: url) }
    var text = "t,ax,ay,az,pressure_kpa\n"
    for i in 0..<500 { text += "\(Double(i) / 100),0,0,9.81,\(i % 10 == 0 ? "101325" : "")\n" }
    try Data(text.utf8).write(to: url)

    let recording = try StepRecording.load(url)
    XCTAssertEqual(recording.pressures.count, 50)
    let loaded = StepCount(times: recording.times, accelerations: recording.accelerations)
    let loadedFloors = loaded.floors(pressures: recording.pressures)
    var refused: [Int] = []
    let (_, streamedFloors) = try StepRecording.count(
      url, refusedPressures: { _, readings, _ in refused.append(readings) })
    XCTAssertEqual(refused, [50])
    XCTAssertNil(streamedFloors.map { [$0.ascended, $0.descended] })
    XCTAssertNil(
      loadedFloors.map { [$0.ascended, $0.descended] }, "floors from no usable reading")
  }

  /// Without a barometer there are no floors (not zero floors), and the file is read once.
  func testNoPressureNoFloors() throws {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("step-streaming-\(UUID().uuidString).csv")
    defer { try? FileManager.default.removeItem(at: url) }
    var text = "t,ax,ay,az\n"
    for i in 0..<500 { text += "\(Double(i) / 100),0,0,9.81\n" }
    try Data(text.utf8).write(to: url)
    let (count, floors) = try StepRecording.count(url)
    XCTAssertEqual(count.stepTimes, [])
    XCTAssertNil(floors)
  }

  /// A walk whose time column is in milliseconds, read as seconds, has its samples 10 s apart:
  /// the detector restarts at each one and finds no step. That is an error naming the likely
  /// cause, not "0 steps"; the same walk in seconds, with one long pause in it, still counts, and
  /// so does the walk followed by more sparse samples than it has dense ones (a logger slowed
  /// down in the background after the walk: most intervals long, but not nearly all).
  func testAnAccelerometerTooSparseForStepsIsAnError() throws {
    let folder = try temporaryFolder("step-sparse")
    var stream = SimulatedSensorStream(scenario: try Scenario.named("walkPocket"), seed: 5)
    var seconds = "t,ax,ay,az\n"
    var milliseconds = "t,ax,ay,az\n"
    var mixed = "t,ax,ay,az\n"
    var index = 0
    var lastTime = 0.0
    while let sample = try stream.next() {
      guard let force = sample.accelerometer else { continue }
      let pause = index >= 1000 ? 36_000.0 : 0  // ten hours
      let values = "\(force.x),\(force.y),\(force.z)\n"
      seconds += "\(sample.timestamp + pause)," + values
      milliseconds += "\(sample.timestamp * 1000)," + values
      mixed += "\(sample.timestamp)," + values
      lastTime = sample.timestamp
      index += 1
    }
    // At rest on a table, one sample every 2 s, twice as many samples as the walk has.
    for rest in 1...(2 * index) { mixed += "\(lastTime + 2 * Double(rest)),0,0,9.81\n" }
    let secondsURL = folder.appendingPathComponent("seconds.csv")
    let millisecondsURL = folder.appendingPathComponent("milliseconds.csv")
    let mixedURL = folder.appendingPathComponent("mixed.csv")
    try Data(seconds.utf8).write(to: secondsURL)
    try Data(milliseconds.utf8).write(to: millisecondsURL)
    try Data(mixed.utf8).write(to: mixedURL)
    let walked = try StepRecording.count(secondsURL).count.stepTimes.count
    XCTAssertGreaterThan(walked, 30)
    // Within a step of it: the walk in `seconds` is broken by its pause.
    let walkedThenRested = try StepRecording.count(mixedURL).count.stepTimes.count
    XCTAssertLessThanOrEqual(abs(walkedThenRested - walked), 1, "\(walkedThenRested) vs \(walked)")
    XCTAssertThrowsError(try StepRecording.count(millisecondsURL)) {
      XCTAssertTrue("\($0)".contains("too sparse to count steps"), "\($0)")
      XCTAssertTrue("\($0)".contains("milliseconds"), "\($0)")
    }
  }

  /// The simulated stairs (two floors up, two down) written the ways a barometer comes beside an
  /// accelerometer in plain tables: one table `t,ax,ay,az,pressure_hpa` whose pressure cells are
  /// empty between readings; and one file per sensor, `NAME_acc.csv` and `NAME_pressure.csv` (the
  /// IPIN layout), found beside it or given. Each gives the stairs' floors; the accelerometer table
  /// alone gives none.
  func testABarometerInAPressureColumnOrInItsOwnFileCountsFloors() throws {
    let folder = try temporaryFolder("step-pressure")
    var stream = SimulatedSensorStream(scenario: try Scenario.named("stairs"), seed: 3)
    var merged = "t,ax,ay,az,pressure_hpa\n"
    var accelerometer = "t,ax,ay,az\n"
    var barometer = "t,pressure_hpa\n"
    while let sample = try stream.next() {
      guard let force = sample.accelerometer else { continue }
      let time = String(format: "%.4f", sample.timestamp + 1000)  // a logger's own clock
      let row = "\(time),\(force.x),\(force.y),\(force.z)"
      accelerometer += row + "\n"
      if let kilopascals = sample.pressure {
        merged += row + ",\(kilopascals * 10)\n"
        barometer += "\(time),\(kilopascals * 10)\n"
      } else {
        merged += row + ",\n"
      }
    }
    let mergedURL = folder.appendingPathComponent("merged.csv")
    let accelerometerURL = folder.appendingPathComponent("T01_R01_acc.csv")
    let barometerURL = folder.appendingPathComponent("T01_R01_pressure.csv")
    try Data(merged.utf8).write(to: mergedURL)
    try Data(accelerometer.utf8).write(to: accelerometerURL)
    try Data(barometer.utf8).write(to: barometerURL)

    let (mergedCount, mergedFloors) = try StepRecording.count(mergedURL)
    XCTAssertEqual(mergedFloors?.ascended, 2)
    XCTAssertEqual(mergedFloors?.descended, 2)

    XCTAssertEqual(StepRecording.siblingPressureFile(of: accelerometerURL), barometerURL)
    XCTAssertNil(StepRecording.siblingPressureFile(of: mergedURL))
    XCTAssertNil(StepRecording.siblingPressureFile(of: barometerURL))
    let (count, floors) = try StepRecording.count(accelerometerURL, pressureFile: barometerURL)
    XCTAssertEqual(count, mergedCount)
    XCTAssertEqual(floors?.ascended, 2)
    XCTAssertEqual(floors?.descended, 2)

    let (_, withoutBarometer) = try StepRecording.count(accelerometerURL)
    XCTAssertNil(withoutBarometer)

    // A barometer on another clock (Unix time) is an error, not zero floors.
    let unixClock = folder.appendingPathComponent("unix_pressure.csv")
    try Data("t,pressure_hpa\n1764000000,1000\n1764000001,1000.1\n".utf8).write(to: unixClock)
    XCTAssertThrowsError(try StepRecording.count(accelerometerURL, pressureFile: unixClock)) {
      XCTAssertTrue("\($0)".contains("do not overlap"), "\($0)")
    }
  }

  /// A plain `t,ax,ay,az` table in g with Apple's sign (as iPhone loggers and the MotionSense
  /// files write it) counts the same steps as the same walk in specific force, m/s²: the units
  /// are told apart by the first samples' median |a|. (Read as m/s², a walk in g was 1/9.8 of
  /// its size: a 154 s MotionSense walk counted 0 steps.)
  func testAPlainTableInGCountsTheSameStepsAsInMetresPerSecondSquared() throws {
    let folder = try temporaryFolder("step-units")
    var stream = SimulatedSensorStream(scenario: try Scenario.named("walkPocket"), seed: 5)
    var specificForce = "t,ax,ay,az\n"
    var appleG = "t,ax,ay,az\n"
    while let sample = try stream.next() {
      guard let force = sample.accelerometer else { continue }
      let g = -force / 9.80665
      specificForce += "\(sample.timestamp),\(force.x),\(force.y),\(force.z)\n"
      appleG += "\(sample.timestamp),\(g.x),\(g.y),\(g.z)\n"
    }
    let forceURL = folder.appendingPathComponent("force.csv")
    let gURL = folder.appendingPathComponent("g.csv")
    try Data(specificForce.utf8).write(to: forceURL)
    try Data(appleG.utf8).write(to: gURL)
    let (inForce, _) = try StepRecording.count(forceURL)
    let (inG, _) = try StepRecording.count(gURL)
    XCTAssertGreaterThan(inForce.stepTimes.count, 30)
    XCTAssertEqual(inG.stepTimes.count, inForce.stepTimes.count)
    for (a, b) in zip(inG.stepTimes, inForce.stepTimes) { XCTAssertEqual(a, b, accuracy: 1e-6) }
    // Loading gives specific force either way.
    let loaded = try StepRecording.load(gURL)
    let first = try XCTUnwrap(loaded.accelerations.first)
    XCTAssertEqual((first * first).sum().squareRoot(), 9.8, accuracy: 0.5)
  }
}
