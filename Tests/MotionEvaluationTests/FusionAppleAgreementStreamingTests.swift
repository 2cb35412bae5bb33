// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionEvaluation
import MotionFusion
import XCTest

/// `FusionAppleAgreement` reads its file as a stream through MotionSensors' CSV reader (issue 13)
/// and gives the numbers it gave when it decoded the whole file and split it; rows it cannot use
/// are counted, and the failures are clear.
///
/// The expected figures were printed by `motionctl evaluate --apple-agreement --json` built from
/// the commit before the change (the whole-file reader), on these very files. Tolerance 1e-9°
/// (the same arithmetic on the same values; only the reading changed). The estimator compared
/// each vector sample with the attitude at its timestamp then, so the test sets it to do so
/// (`sampleAveragingLag` 0); only the reading is under test here.
final class FusionAppleAgreementStreamingTests: XCTestCase {
  /// `value` × 10^-`decimals` as fixed-point text, from integers only, so that the file is the same
  /// bytes on every platform (and as the script that produced the expected figures wrote it).
  private static func fixed(_ value: Int, _ decimals: Int) -> String {
    var scale = 1
    for _ in 0..<decimals { scale *= 10 }
    let magnitude = abs(value)
    let fraction = String(magnitude % scale)
    return (value < 0 ? "-" : "") + "\(magnitude / scale)."
      + String(repeating: "0", count: decimals - fraction.count) + fraction
  }

  /// The estimator as it was when the expected figures were printed (2026-11-26).
  private static var parametersOfTheFigures: AttitudeEstimator.Parameters {
    var parameters = AttitudeEstimator.Parameters.default
    parameters.sampleAveragingLag = 0
    parameters.magnetometerDelay = 0
    return parameters
  }

  private static let header =
    "t,ax,ay,az,gx,gy,gz,apple_gravity_x,apple_gravity_y,apple_gravity_z"

  /// 30 s at 50 Hz in the MotionSense layout: a phone lying almost flat that tilts back and forth
  /// (a triangle wave) with noise from a fixed linear congruential generator.
  private static func rows(count: Int = 1500) -> [String] {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func noise(_ k: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(2 * k + 1)) - k
    }
    return (0..<count).map { i in
      let phase = i % 200
      let triangle = abs(phase - 100) - 50
      let ax = triangle * 40 + noise(50)
      let ay = noise(300)
      let az = -10_000 + noise(100)
      let gx = (phase < 100 ? 500 : -500) + noise(100)
      let gy = noise(100)
      let gz = noise(100)
      let appleX = triangle * 40
      let appleY = noise(5)
      let appleZ = -9990 + noise(5)
      return
        ([fixed(i * 20, 3)] + [ax, ay, az, gx, gy, gz, appleX, appleY, appleZ].map { fixed($0, 4) })
        .joined(separator: ",")
    }
  }

  /// Rows the evaluation skips and counts: a value that is NaN, empty, not a number, infinite or
  /// overflowing; a missing cell; a line of spaces or of text; a cell of other text; and a
  /// 2 MiB line (longer than the reader's 1 MiB window, which grows for it, but without the
  /// columns).
  private static let badRows = [
    "0.1,nan,0,-1,0,0,0,0,0,-1", "0.1,,0,-1,0,0,0,0,0,-1", "0.1,1.2.3,0,-1,0,0,0,0,0,-1",
    "0.1,0,0,-1,0,0,0,0,0", "0.1,0,0,-1,0,0,inf,0,0,-1", "0.1,0,0,-1,0,0,0,0,0,\u{FFFD}", "   ",
    "garbage", "1e999,0,0,-1,0,0,0,0,0,-1", String(repeating: "9", count: (1 << 21) + 7),
  ]

  private func write(_ text: String, _ name: String, in folder: URL) throws -> String {
    let url = folder.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url.path
  }

  /// The plain file, the same rows with the bad rows among them, and the same rows behind a
  /// byte-order mark with Unix and Windows line breaks and blank lines: the figures of the
  /// whole-file reader.
  func testStreamedResultsEqualTheWholeFileResults() throws {
    let folder = try temporaryFolder("apple-agreement")
    let rows = Self.rows()
    let plain = try write(
      Self.header + "\n" + rows.joined(separator: "\n") + "\n", "plain.csv", in: folder)
    var withBadRows: [String] = []
    for (i, row) in rows.enumerated() {
      if i % 150 == 75 { withBadRows.append(Self.badRows[(i / 150) % Self.badRows.count]) }
      withBadRows.append(row)
    }
    let bad = try write(
      Self.header + "\n" + withBadRows.joined(separator: "\n") + "\n", "bad.csv", in: folder)
    let breaks = ["\r\n", "\n", "\n\n", "\r\n\r\n"]
    var text = "\u{FEFF}" + Self.header
    for (i, row) in rows.enumerated() { text += breaks[i % breaks.count] + row }
    let separators = try write(text, "separators.csv", in: folder)

    // (decimation, count, median, p95) from the whole-file reader, identical for the three files.
    let expected: [(Int, Int, Double, Double)] = [
      (1, 1500, 6.42863545143956, 12.110552891870931),
      (3, 500, 6.431359542670851, 12.136505790820191),
    ]
    for (path, skipped) in [(plain, 0), (bad, Self.badRows.count), (separators, 0)] {
      for (decimation, count, median, p95) in expected {
        let trial = try FusionAppleAgreement.evaluate(
          path: path, decimation: decimation, parameters: Self.parametersOfTheFigures)
        let label = "\(path) decimated by \(decimation)"
        XCTAssertEqual(
          trial.name, URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent)
        XCTAssertEqual(trial.count, count, label)
        XCTAssertEqual(trial.skippedRows, skipped, label)
        XCTAssertEqual(trial.median, median, accuracy: 1e-9, label)
        XCTAssertEqual(trial.p95, p95, accuracy: 1e-9, label)
      }
    }
  }

  /// The failures: a file that cannot be read, no line, a missing column, too few rows for two
  /// windows. A line that is not UTF-8 is a skipped row, not a failure.
  func testFailuresAreTheWholeFileFailures() throws {
    let folder = try temporaryFolder("apple-agreement-failures")
    let rows = Self.rows(count: 20).joined(separator: "\n")
    let withoutGZ = Self.header.replacingOccurrences(of: ",gz", with: "")
    typealias Failure = FusionAppleAgreement.Failure
    let cases: [(path: String, decimation: Int, expected: Failure)] = [
      (
        folder.appendingPathComponent("absent.csv").path, 1,
        .unreadable(folder.appendingPathComponent("absent.csv").path)
      ),
      (folder.path, 1, .unreadable(folder.path)),
      (
        try write("", "empty.csv", in: folder), 1,
        .noSamples(folder.appendingPathComponent("empty.csv").path)
      ),
      (
        try write("\n\r\n", "blank.csv", in: folder), 1,
        .noSamples(folder.appendingPathComponent("blank.csv").path)
      ),
      (
        try write(withoutGZ + "\n" + rows, "no-gz.csv", in: folder), 1,
        .missingColumns(folder.appendingPathComponent("no-gz.csv").path, ["gz"])
      ),
      (
        try write(Self.header + "\n", "header.csv", in: folder), 1,
        .noSamples(folder.appendingPathComponent("header.csv").path)
      ),
      (
        try write(Self.header + "\n" + Self.rows(count: 1)[0], "one.csv", in: folder), 1,
        .noSamples(folder.appendingPathComponent("one.csv").path)
      ),
      (
        try write(Self.header + "\n" + rows, "short.csv", in: folder), 11,
        .noSamples(folder.appendingPathComponent("short.csv").path)
      ),
    ]
    for (path, decimation, expected) in cases {
      XCTAssertThrowsError(try FusionAppleAgreement.evaluate(path: path, decimation: decimation)) {
        XCTAssertEqual("\($0)", expected.description, path)
      }
    }
    // A row that is not UTF-8 is skipped and counted.
    let notUTF8 = folder.appendingPathComponent("not-utf8.csv")
    try Data(Array((Self.header + "\n" + rows + "\n").utf8) + [0xFF, 0x2C, 0x0A]).write(to: notUTF8)
    let trial = try FusionAppleAgreement.evaluate(path: notUTF8.path, decimation: 2)
    XCTAssertEqual(trial.count, 10)
    XCTAssertEqual(trial.skippedRows, 1)
    // Twenty rows make ten windows of two: enough.
    XCTAssertEqual(
      try FusionAppleAgreement.evaluate(
        path: folder.appendingPathComponent("short.csv").path, decimation: 2
      ).count,
      10)
  }
}
