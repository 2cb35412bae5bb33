// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors
import MotionMath
import MotionSensors
import XCTest

@testable import MotionEvaluation

/// The step and activity evaluations, and fusion trials, read their recordings as streams
/// (issue 13): the same results as the recordings loaded whole, on small files written here.
final class EvaluationStreamingTests: XCTestCase {
  /// A simulated scenario's accelerometer as a plain `t,ax,ay,az` table: specific force in m/s²,
  /// or g with Apple's sign (as iPhone loggers write it), from `start` s on.
  private func plainTable(
    _ scenario: String, seed: UInt64, inG: Bool, start: Double = 0
  ) throws -> [String] {
    var stream = SimulatedSensorStream(scenario: try Scenario.named(scenario), seed: seed)
    var rows: [String] = []
    while let sample = try stream.next() {
      guard let force = sample.accelerometer else { continue }
      let value = inG ? -force / 9.80665 : force
      rows.append("\(start + sample.timestamp),\(value.x),\(value.y),\(value.z)")
    }
    return rows
  }

  private func write(_ rows: [String], to url: URL, header: String = "t,ax,ay,az") throws {
    try Data(([header] + rows).joined(separator: "\n").utf8).write(to: url)
  }

  // MARK: - Steps

  /// `StepEvaluation.evaluate` counts while reading; the scores equal those of the recordings
  /// loaded whole and counted afterwards (truth windows narrower than the recordings, a walk in
  /// m/s² and stairs with a barometer in g).
  func testStepScoresCountedWhileReadingEqualLoadedScores() throws {
    let folder = try temporaryFolder("step-evaluation-streaming")
    try write(
      try plainTable("walkPocket", seed: 11, inG: false),
      to: folder.appendingPathComponent("walk.csv"))
    try write(
      try plainTable("stairs", seed: 12, inG: true, start: 1000),
      to: folder.appendingPathComponent("stairs.csv"))
    try Data(
      """
      file,source,position,gt_steps,gt_window_start_s,gt_window_end_s,subject_height_cm,nominal_distance_m
      walk.csv,oxford-test,InHand,45,4,30,,
      stairs.csv,ipol,LowerBack,90,1003,1070,175,20

      """.utf8
    ).write(to: folder.appendingPathComponent("index.csv"))

    let streamed = try StepEvaluation.evaluate(paths: [folder.path])

    var loaded: [StepEvaluation.Recording] = []
    for url in try StepEvaluation.recordingFiles(in: [folder.path]) {
      let truth = try XCTUnwrap(StepGroundTruth.load(for: url))
      let recording = try StepRecording.load(url)
      let count = StepCount(
        times: recording.times, accelerations: recording.accelerations,
        userHeight: truth.userHeight)
      loaded.append(StepEvaluation.score(count, truth))
    }
    XCTAssertEqual(streamed.recordings.map(\.file), ["stairs.csv", "walk.csv"])
    XCTAssertEqual(streamed.recordings, loaded)
    for recording in streamed.recordings { XCTAssertGreaterThan(recording.steps, 20) }

    // A recording that cannot be read is the same error either way.
    let broken = folder.appendingPathComponent("broken")
    try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
    try Data("t,ax,ay,az\n0,0,0,9.8\n0.01,x,0,9.8\n".utf8).write(
      to: broken.appendingPathComponent("bad.csv"))
    try Data("file,gt_steps,gt_window_start_s,gt_window_end_s\nbad.csv,3,0,1\n".utf8).write(
      to: broken.appendingPathComponent("index.csv"))
    var loadError = ""
    XCTAssertThrowsError(try StepRecording.load(broken.appendingPathComponent("bad.csv"))) {
      loadError = "\($0)"
    }
    XCTAssertThrowsError(try StepEvaluation.evaluate(paths: [broken.path])) {
      XCTAssertEqual("\($0)", loadError)
    }
  }

  // MARK: - Activity

  /// A labelled folder in the shared activity layout: two subjects, stationary (a phone on a
  /// table), walking and running; one subject in g with Apple's sign with two bad rows (a NaN,
  /// a time going back), the other in m/s².
  private func activityFolder() throws -> URL {
    let folder = try temporaryFolder("activity-streaming")
    var index = ["file,source,subject,label"]
    for (subject, inG) in [("S01", true), ("S02", false)] {
      var stationary: [String] = []
      for i in 0..<2400 {
        let x = Double(i % 7 - 3) / 300
        let z = inG ? -1.0 : 9.80665
        stationary.append("\(Double(i) / 50),\(x),0.004,\(z)")
      }
      var walking = try plainTable("walkPocket", seed: subject == "S01" ? 21 : 22, inG: inG)
      if inG {
        walking.insert("1.234,nan,0,-1", at: 700)
        walking.insert("0.5,0,0,-1", at: 900)
      }
      let running = try plainTable("run", seed: subject == "S01" ? 23 : 24, inG: inG)
      for (label, rows) in [("stationary", stationary), ("walking", walking), ("running", running)]
      {
        let name = "\(subject)_\(label).csv"
        try write(rows, to: folder.appendingPathComponent(name))
        index.append("\(name),motionsense,\(subject),\(label)")
      }
    }
    try Data(index.joined(separator: "\n").utf8).write(
      to: folder.appendingPathComponent("index.csv"))
    return folder
  }

  /// Features extracted while reading equal those of the loaded recordings, and the switching
  /// sequences (cut from two streamed passes) hold what they should.
  func testActivityFeaturesAndSwitchSequencesStreamedEqualLoaded() throws {
    let dataset = try ActivityDataset.load(paths: [try activityFolder().path])
    XCTAssertEqual(dataset.entries.count, 6)
    let sets = try ActivityFeatureSet.load(dataset, concurrency: 2)
    XCTAssertEqual(sets.map(\.entry), dataset.entries)
    for set in sets {
      let (features, times) = ActivityFeatureSet.extract(try ActivityRecording.load(set.entry.url))
      XCTAssertGreaterThan(times.count, 20, set.entry.name)
      XCTAssertEqual(set.features, features, set.entry.name)
      XCTAssertEqual(set.times, times, set.entry.name)
    }

    // Each piece of a switching sequence is a contiguous run of its file's samples from the
    // middle (the first and last 5 s left out), at most 40 s long, moved onto one running clock.
    let sequences = try ActivityEvaluation.switchSequences(sets)
    XCTAssertEqual(sequences.count, 2)
    for (source, subject, sequence) in sequences {
      XCTAssertGreaterThan(sequence.count, 3, subject)
      let files = sets.filter { $0.entry.source == source && $0.entry.subject == subject }
      var clock = 0.0
      for piece in sequence {
        let label = "\(subject) \(piece.label)"
        let first = try XCTUnwrap(piece.times.first, label)
        XCTAssertGreaterThanOrEqual(first, clock, label)
        XCTAssertLessThan(first - clock, 0.05, label)
        XCTAssertLessThanOrEqual(try XCTUnwrap(piece.times.last) - first, 40, label)
        XCTAssertEqual(piece.times, piece.times.sorted(), label)
        let file = try XCTUnwrap(files.first { $0.entry.label == piece.label }, label)
        let recording = try ActivityRecording.load(file.entry.url)
        // Where in the file the piece starts: its samples, and their spacing, from there on.
        let count = piece.acceleration.count
        let start = try XCTUnwrap(
          recording.times.indices.first { i in
            i + count <= recording.times.count
              && recording.times[i] - recording.times[0] >= 5
              && Array(recording.acceleration[i..<(i + count)]) == piece.acceleration
              && (0..<count).allSatisfy { j in
                abs(
                  (recording.times[i + j] - recording.times[i]) - (piece.times[j] - piece.times[0]))
                  < 1e-9
              }
          }, label)
        XCTAssertLessThanOrEqual(
          recording.times[start + count - 1], try XCTUnwrap(recording.times.last) - 5, label)
        clock = try XCTUnwrap(piece.times.last)
      }
    }
  }

  /// A file that cannot be read fails the feature extraction with the error loading it gave.
  func testActivityFeatureErrorsAreTheLoadingErrors() throws {
    let folder = try temporaryFolder("activity-streaming-errors")
    try Data("file,source,subject,label\nabsent.csv,motionsense,S01,walking\n".utf8).write(
      to: folder.appendingPathComponent("index.csv"))
    let dataset = try ActivityDataset.load(paths: [folder.path])
    var loadError = ""
    XCTAssertThrowsError(try ActivityRecording.load(dataset.entries[0].url)) { loadError = "\($0)" }
    XCTAssertThrowsError(try ActivityFeatureSet.load(dataset)) {
      XCTAssertEqual("\($0)", loadError)
    }
  }

  // MARK: - Fusion trials

  /// A simulated recording with ground truth, as its data lines (after the header).
  private func recordingWithGroundTruth(_ url: URL) throws -> (head: [String], rows: [String]) {
    var stream = SimulatedSensorStream(scenario: try Scenario.named("figure8"), seed: 31)
    let writer = try RecordingWriter(
      url: url, descriptor: stream.descriptor, includeGroundTruth: true)
    try writer.writeAll(from: &stream)
    try writer.finish()
    let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
    let header = try XCTUnwrap(lines.firstIndex { !$0.hasPrefix("#") })
    return (Array(lines[...header]), Array(lines[(header + 1)...]))
  }

  /// `EvaluationTrial.load` fills its arrays from the reader's stream: the trial built from the
  /// whole list of samples, and a clear error at the first sample without a gyroscope.
  func testTrialFromTheStreamEqualsTrialFromAllSamples() throws {
    let folder = try temporaryFolder("trial-streaming")
    let url = folder.appendingPathComponent("figure8.csv")
    let (head, rows) = try recordingWithGroundTruth(url)
    let streamed = try EvaluationTrial.load(path: url.path)
    let whole = try EvaluationTrial(name: "figure8", samples: try RecordingReader.readSamples(url))
    XCTAssertGreaterThan(streamed.count, 1000)
    XCTAssertEqual(streamed.name, whole.name)
    XCTAssertEqual(streamed.timestamps, whole.timestamps)
    XCTAssertEqual(streamed.gyroscope, whole.gyroscope)
    XCTAssertEqual(streamed.accelerometer, whole.accelerometer)
    XCTAssertEqual(streamed.magnetometer, whole.magnetometer)
    XCTAssertEqual(streamed.reference, whole.reference)
    XCTAssertEqual(streamed.isMovementPhase, whole.isMovementPhase)
    XCTAssertTrue(streamed.reference.contains { $0 != nil })

    // Row 100 without its gyroscope (cells 5–7 empty).
    var withoutGyroscope = rows
    var cells = withoutGyroscope[100].split(separator: ",", omittingEmptySubsequences: false)
    for i in 4..<7 { cells[i] = "" }
    withoutGyroscope[100] = cells.joined(separator: ",")
    let missing = folder.appendingPathComponent("missing.csv")
    try Data((head + withoutGyroscope).joined(separator: "\n").utf8).write(to: missing)
    XCTAssertThrowsError(try EvaluationTrial.load(path: missing.path)) {
      XCTAssertEqual(
        "\($0)", "\(EvaluationTrial.LoadError.missingSensors("missing"))")
    }
  }
}
