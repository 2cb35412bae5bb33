// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest
import _MotionTestSupport

@testable import MotionSensors

/// Reading a file through a small ``CSVBytes`` window, refilled as the cursor advances, gives the
/// same rows, cells, line numbers and samples as reading it through one window holding all of it.
final class RecordingStreamingWindowTests: XCTestCase {
  /// One row of a cursor: its line number and the text of its cells.
  private struct Row: Equatable {
    var line: Int
    var cells: [String]
  }

  /// Random CSV text: rows of random length (1–12 cells of 0–40 bytes), with quoted cells holding
  /// separators and doubled quotes, CRLF line ends, blank lines, and no final line feed sometimes.
  private func randomTable(rows: Int, rng: inout SplitMix64) -> String {
    var text = ""
    let characters = Array("0123456789.-e+ abcxyz")
    for _ in 0..<rows {
      if Int.random(in: 0..<20, using: &rng) == 0 {
        text += Bool.random(using: &rng) ? "\n" : "\r\n"
        continue
      }
      let cells = Int.random(in: 1...12, using: &rng)
      var row: [String] = []
      for _ in 0..<cells {
        let length = Int.random(in: 0...40, using: &rng)
        var cell = String((0..<length).map { _ in characters.randomElement(using: &rng)! })
        if Int.random(in: 0..<8, using: &rng) == 0 { cell = "\"" + cell + ",\"\"q\"\"\"" }
        row.append(cell)
      }
      text += row.joined(separator: ",") + (Int.random(in: 0..<4, using: &rng) == 0 ? "\r\n" : "\n")
    }
    if Bool.random(using: &rng) { text += "last,row,without,line,feed" }
    return text
  }

  private func rows(of bytes: CSVBytes) throws -> [Row] {
    var cursor = CSVCursor(bytes)
    var fields: [CSVField] = []
    var result: [Row] = []
    while try cursor.nextRow(into: &fields) {
      result.append(Row(line: cursor.lineNumber, cells: fields.map(cursor.bytes.string)))
    }
    XCTAssertTrue(cursor.isAtEnd)
    return result
  }

  func testRowsStraddlingRefillsParseAsFromOneWindow() throws {
    let seed = testSeed()
    print("RecordingStreamingWindowTests seed \(seed)")
    var rng = SplitMix64(seed: seed)
    let folder = try RecordingFixtureFolder()
    for trial in 0..<6 {
      var text = randomTable(rows: Int.random(in: 200...2000, using: &rng), rng: &rng)
      // Every other file starts with a byte-order mark, which the cursor skips.
      if trial % 2 == 1 { text = "\u{FEFF}" + text }
      let url = try folder.write(text, to: "table\(trial).csv")
      let size = text.utf8.count
      // One window holding the whole file: the reader as it was before windows.
      let whole = try CSVBytes(contentsOf: url, windowSize: size + 1)
      XCTAssertEqual(whole.count, size, "seed \(seed): one window holds the whole file")
      let expected = try rows(of: whole)
      XCTAssertGreaterThan(expected.count, 100, "seed \(seed)")
      // Windows from shorter than most rows (growing to hold one) to a few kilobytes.
      for windowSize in [1, 7, 64, Int.random(in: 65...400, using: &rng), 4096] {
        let windowed = try CSVBytes(contentsOf: url, windowSize: windowSize)
        XCTAssertLessThan(windowed.count, size, "the window does not hold the whole file")
        let read = try rows(of: windowed)
        XCTAssertEqual(
          read.count, expected.count, "seed \(seed), trial \(trial), window \(windowSize)")
        if let first = zip(read, expected).enumerated().first(where: {
          $0.element.0 != $0.element.1
        })?.offset {
          XCTFail(
            "seed \(seed), trial \(trial), window \(windowSize): row \(first) differs: "
              + "\(read[first]) != \(expected[first])")
        }
        // The same bytes from memory (an archive member) through the same window size.
        let fromMemory = try rows(
          of: CSVBytes(data: Data(text.utf8), fileName: "m", windowSize: windowSize))
        XCTAssertEqual(
          fromMemory, expected, "seed \(seed), trial \(trial), window \(windowSize), in memory")
      }
    }
  }

  func testCopiesOfACursorReadOnTheirOwn() throws {
    let seed = testSeed()
    var rng = SplitMix64(seed: seed)
    let text = randomTable(rows: 500, rng: &rng)
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(text, to: "table.csv")
    let expected = try rows(of: CSVBytes(contentsOf: url, windowSize: text.utf8.count + 1))
    var original = CSVCursor(try CSVBytes(contentsOf: url, windowSize: 50))
    var fields: [CSVField] = []
    for _ in 0..<10 { XCTAssertTrue(try original.nextRow(into: &fields)) }
    // A copy taken mid-file (as SensorLog's per-sensor tables are), then both read interleaved.
    var copy = original
    var fromOriginal: [Row] = []
    var fromCopy: [Row] = []
    var originalDone = false
    var copyDone = false
    while !originalDone || !copyDone {
      for _ in 0..<Int.random(in: 1...5, using: &rng) where !originalDone {
        if try original.nextRow(into: &fields) {
          fromOriginal.append(
            Row(line: original.lineNumber, cells: fields.map(original.bytes.string)))
        } else {
          originalDone = true
        }
      }
      for _ in 0..<Int.random(in: 1...5, using: &rng) where !copyDone {
        if try copy.nextRow(into: &fields) {
          fromCopy.append(Row(line: copy.lineNumber, cells: fields.map(copy.bytes.string)))
        } else {
          copyDone = true
        }
      }
    }
    XCTAssertEqual(fromOriginal, Array(expected.dropFirst(10)), "seed \(seed)")
    XCTAssertEqual(fromCopy, Array(expected.dropFirst(10)), "seed \(seed)")
    // A new cursor on a window that has moved on starts again at the file's first line.
    var again = CSVCursor(original.bytes)
    XCTAssertTrue(try again.nextRow(into: &fields))
    XCTAssertEqual(
      Row(line: again.lineNumber, cells: fields.map(again.bytes.string)), expected.first,
      "seed \(seed)")
  }

  func testRecordingReadThroughSmallWindowsIsBitIdentical() throws {
    let seed = testSeed()
    var rng = SplitMix64(seed: seed)
    let folder = try RecordingFixtureFolder()
    let url = folder.url.appendingPathComponent("recording.csv")
    let writer = try RecordingWriter(
      url: url,
      descriptor: StreamDescriptor(name: "window", sensors: .nineAxis, nominalSampleRate: 100))
    for i in 0..<3000 {
      func value() -> Double {
        Double.random(in: -20...20, using: &rng)
          * pow(10, Double(Int.random(in: -6...3, using: &rng)))
      }
      try writer.append(
        MotionSample(
          timestamp: Double(i) / 100, accelerometer: SIMD3(value(), value(), value()),
          gyroscope: SIMD3(value(), value(), value()),
          magnetometer: SIMD3(value(), value(), value())))
    }
    try writer.finish()
    let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
    func samples(windowSize: Int) throws -> [MotionSample] {
      var stream = try OpenCoreMotionCSV.open(
        try CSVBytes(contentsOf: url, windowSize: windowSize), url: url, options: .init())
      var result: [MotionSample] = []
      while let sample = try stream.next() { result.append(sample) }
      return result
    }
    let expected = try samples(windowSize: size + 1)
    XCTAssertEqual(expected.count, 3000)
    for windowSize in [100, Int.random(in: 101...5000, using: &rng), 65_536] {
      let read = try samples(windowSize: windowSize)
      XCTAssertEqual(read.count, expected.count, "seed \(seed), window \(windowSize)")
      for (a, b) in zip(read, expected) where a != b {
        XCTFail("seed \(seed), window \(windowSize): sample at t = \(a.timestamp) differs")
        break
      }
    }
  }

  func testALineLongerThanTheLimitIsAnErrorNamingTheLine() throws {
    let folder = try RecordingFixtureFolder()
    var text = "t,a\n0,1\n1,"
    text += String(repeating: "9", count: CSVBytes.maximumLineLength + 10)
    text += "\n2,3\n"
    let url = try folder.write(text, to: "long.csv")
    var cursor = CSVCursor(try CSVBytes(contentsOf: url))
    var fields: [CSVField] = []
    XCTAssertTrue(try cursor.nextRow(into: &fields))
    XCTAssertTrue(try cursor.nextRow(into: &fields))
    XCTAssertThrowsError(try cursor.nextRow(into: &fields)) { error in
      let recordingError = error as? RecordingError
      XCTAssertEqual(recordingError?.kind, .malformedRow)
      XCTAssertEqual(recordingError?.line, 3)
    }
  }
}
