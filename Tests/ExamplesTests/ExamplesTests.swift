// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

/// Runs each example program against the simulator and checks what it prints.
///
/// Simulations play at ten times real time (`?speed=10`), so a 45 s tour takes under 5 s; the
/// examples stop after `--duration` seconds of sensor time or at the end of a finite scenario.
final class ExamplesTests: XCTestCase {
  private func lines(_ text: String) -> [String] {
    text.split(separator: "\n").map(String.init)
  }

  /// Whether `expected` appears in `lines` in order (other lines may come between).
  private func containsInOrder(_ lines: [String], _ expected: [String]) -> Bool {
    var index = expected.startIndex
    for line in lines where index < expected.endIndex && line == expected[index] {
      index += 1
    }
    return index == expected.endIndex
  }

  func testOrientationFollowsTheTour() throws {
    let run = try ExampleBinary.run(
      "OrientationExample", source: "simulator:tour?speed=10", arguments: ["--duration", "45"])
    XCTAssertEqual(run.status, 0, run.error)
    let output = lines(run.output)
    // The label starts as "Unknown" unless the first readings were classified before the
    // controller read the orientation: UIDevice updates it on the motion queue, and at ten times
    // real time the tour's face-up start can be known already (seen once in CI, 2026-11-29).
    XCTAssertTrue(
      ["Orientation: Unknown", "Orientation: Face Up"].contains(output.first ?? ""), run.output)
    let expected = [
      "Face Up", "Portrait", "Landscape Left", "Portrait Upside Down", "Landscape Right",
      "Face Down",
      "Face Up",
    ].map { "Orientation: " + $0 }
    XCTAssertTrue(containsInOrder(output, expected), run.output)
    // Each change is printed once: no two equal lines in a row.
    XCTAssertFalse(zip(output, output.dropFirst()).contains { $0 == $1 }, run.output)
  }

  func testColorTiltChangesColourOnTheShakeAndFadesWithTilt() throws {
    let run = try ExampleBinary.run(
      "ColorTiltExample", source: "simulator:tour?speed=10", arguments: ["--duration", "49"])
    XCTAssertEqual(run.status, 0, run.error)
    let output = lines(run.output)
    let colours = output.filter { $0.hasPrefix("Colour: ") }
    // The tour's 2 s shake at 4.5 Hz and ~2.8 g: several jolts, at most two colours a second.
    XCTAssertGreaterThanOrEqual(colours.count, 3, run.output)
    XCTAssertLessThanOrEqual(colours.count, 6, run.output)
    XCTAssertTrue(output.contains("Alpha: 1.0") && output.contains("Alpha: 0.0"), run.output)
  }

  func testGyroscopeShowsTheRotation() throws {
    let run = try ExampleBinary.run(
      "GyroscopeExample", source: "simulator:rotateZ?speed=10", arguments: ["--duration", "20"])
    XCTAssertEqual(run.status, 0, run.error)
    // Rows look like "x ···|··· +0.00 rad/s   y ... z ···|### +0.52 rad/s".
    let zValues = lines(run.output).compactMap { line -> Double? in
      guard let range = line.range(of: "z ") else { return nil }
      return Double(line[range.upperBound...].split(separator: " ").dropFirst().first ?? "")
    }
    XCTAssertGreaterThan(zValues.count, 60, run.output)  // four rows a second
    // rotateZ turns at 30 °/s = 0.524 rad/s; the raw gyroscope adds noise and a small bias.
    XCTAssertEqual(zValues.max() ?? 0, 0.524, accuracy: 0.05, run.output)
  }

  func testMotionShowsRawEqualsGravityPlusUser() throws {
    let run = try ExampleBinary.run(
      "MotionExample", source: "simulator:tour?speed=10", arguments: ["--duration", "12"])
    XCTAssertEqual(run.status, 0, run.error)
    let differences = lines(run.output).compactMap { line -> Double? in
      guard let range = line.range(of: "|diff| ") else { return nil }
      return Double(line[range.upperBound...].split(separator: " ").first ?? "")
    }
    XCTAssertGreaterThanOrEqual(differences.count, 20, run.output)
    // Raw acceleration and gravity + user acceleration agree up to the accelerometer's noise
    // and bias, which fusion removes (a few hundredths of a g).
    XCTAssertLessThan(differences.max() ?? 1, 0.06, run.output)
  }

  func testClunkGoesBackOnceForTheKnockAndStopsAtTheEndOfTheSource() throws {
    // No --duration: the `tap` scenario is finite, so the program must end by itself.
    let run = try ExampleBinary.run("ClunkExample", source: "simulator:tap?speed=10")
    XCTAssertEqual(run.status, 0, run.error)
    let clunks = lines(run.output).filter { $0.hasPrefix("Clunk!") }
    XCTAssertEqual(clunks.count, 1, run.output)
    XCTAssertTrue(clunks.first?.hasSuffix("Back to: Article 2") ?? false, run.output)
  }

  func testFacingFlipsBetweenQuestionAndAnswer() throws {
    let run = try ExampleBinary.run(
      "FacingExample", source: "simulator:tour?speed=10", arguments: ["--duration", "45"])
    XCTAssertEqual(run.status, 0, run.error)
    XCTAssertEqual(
      lines(run.output),
      [
        "Question: What is the capital of France?", "Answer: Paris",
        "Question: How many g does a phone lying still read?",
      ],
      "turned over once (face down) and back (face up)")
  }

  func testHorizonStaysLevel() throws {
    let run = try ExampleBinary.run(
      "HorizonExample", source: "simulator:tour?speed=10", arguments: ["--duration", "30"])
    XCTAssertEqual(run.status, 0, run.error)
    let output = lines(run.output)
    // Face up: no horizon; portrait: level as drawn; landscape left (turned counter-clockwise):
    // the line turns clockwise; upside down: half a turn.
    XCTAssertTrue(
      containsInOrder(
        output,
        [
          "Horizon: flat (screen facing up)", "Horizon: rotate 0°, lean 0°",
          "Horizon: rotate -90°, lean 0°",
        ]),
      run.output)
    XCTAssertTrue(
      output.contains {
        $0.hasPrefix("Horizon: rotate 180°") || $0.hasPrefix("Horizon: rotate -180°")
      }, run.output)
  }

  func testMovementReporterNamesEachMove() throws {
    // Six sharp 20 cm moves of a face-up device along the earth axes (NWU: north = device +x, west
    // = device +y, up = out of the screen), one second apart.
    let moves: [([Double], String)] = [
      ([0.2, 0, 0], "right"), ([-0.2, 0, 0], "left"), ([0, 0.2, 0], "up"), ([0, -0.2, 0], "down"),
      ([0, 0, 0.2], "back"), ([0, 0, -0.2], "forward"),
    ]
    var segments: [[String: Any]] = [["type": "rest", "duration": 1]]
    for (displacement, _) in moves {
      segments.append(["type": "translate", "displacement": displacement, "duration": 0.4])
      segments.append(["type": "rest", "duration": 1])
    }
    let scenario: [String: Any] = ["name": "moves", "segments": segments]
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "opencoremotion-moves-\(UUID().uuidString).json")
    try JSONSerialization.data(withJSONObject: scenario).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }

    let run = try ExampleBinary.run(
      "MovementReporterExample", source: "simulator:\(url.path)?speed=10")
    XCTAssertEqual(run.status, 0, run.error)
    let reported = lines(run.output).compactMap {
      $0.split(separator: " ").dropFirst().first.map(String.init)
    }
    XCTAssertEqual(reported, moves.map(\.1), run.output)
  }

  func testMissingSensorsAreReported() throws {
    let run = try ExampleBinary.run(
      "GyroscopeExample", source: "none", arguments: ["--duration", "1"])
    XCTAssertNotEqual(run.status, 0)
    XCTAssertTrue(run.error.contains("no gyroscope"), run.error)
  }

  func testReadmeQuickStartRunsUnchanged() throws {
    let run = try ExampleBinary.run("QuickStartExample", source: "simulator:portrait")
    XCTAssertEqual(run.status, 0, run.error)
    let lines = run.output.split(separator: "\n")
    // 5 s at 30 updates per second.
    XCTAssertGreaterThan(lines.count, 100, run.output)
    // Upright in portrait: pitch +90° (within 2° of phone-grade noise and filter settling).
    let fields = lines.last!.split(separator: " ")
    let pitchText = try XCTUnwrap(fields.firstIndex(of: "pitch").map { fields[$0 + 1].dropLast() })
    XCTAssertEqual(try XCTUnwrap(Double(pitchText)), 90, accuracy: 2, String(lines.last!))

    let none = try ExampleBinary.run("QuickStartExample", source: "none")
    XCTAssertEqual(none.status, 1)
    XCTAssertTrue(none.output.contains("no device motion"), none.output)
  }

  /// iOS test doubles: subclassed managers and data classes, in a file that imports CoreMotion
  /// alone. That it builds is most of the check; the run shows the overrides are the ones read.
  func testTestDoublesCompileAndRun() throws {
    let run = try ExampleBinary.run("TestDoublesExample", source: "none")
    XCTAssertEqual(run.status, 0, run.error)
    XCTAssertEqual(
      run.output.split(separator: "\n"),
      [
        "steps in the last hour: 4321", "walking: true", "device motion available: true",
        "altimeter readings: 0", "recorded samples: 0 0",
      ], run.output)
  }
}
