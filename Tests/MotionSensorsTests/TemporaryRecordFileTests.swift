// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import MotionSensors

/// The block-cached temporary file behind the bounded-memory offline replay.
final class TemporaryRecordFileTests: XCTestCase {
  /// A record with padding (stride 16), as the offline samples have.
  struct Record: BitwiseCopyable, Equatable {
    var time: Double
    var value: Int32
  }

  /// Written backward and read forward, as the offline estimator's backward pass is, with blocks
  /// of seven records so that most accesses cross a block.
  func testRecordsWrittenBackwardReadBackForwardAcrossBlocks() throws {
    let file = try TemporaryRecordFile<Record>(prefix: "test-records", blockByteCount: 7 * 16)
    XCTAssertEqual(file.recordsPerBlock, 7)
    let count = 1000
    for index in stride(from: count - 1, through: 0, by: -1) {
      file[index] = Record(time: Double(index) * 0.01, value: Int32(index))
    }
    XCTAssertEqual(file.count, count)
    for index in 0..<count {
      XCTAssertEqual(file[index], Record(time: Double(index) * 0.01, value: Int32(index)))
    }
    // Rewritten in place forward, as the blend does, and read backward.
    for index in 0..<count { file[index].value = -file[index].value }
    for index in stride(from: count - 1, through: 0, by: -1) {
      XCTAssertEqual(file[index].value, -Int32(index))
    }
    XCTAssertNil(file.failure)
  }

  /// Appending, and alternating between two neighbouring records on either side of a block edge
  /// (the backward pass reads samples i and i + 1).
  func testAppendAndNeighboursAcrossABlockEdge() throws {
    let file = try TemporaryRecordFile<Record>(prefix: "test-records", blockByteCount: 4 * 16)
    for index in 0..<10 { file.append(Record(time: Double(index), value: Int32(index))) }
    XCTAssertEqual(file.count, 10)
    for _ in 0..<3 {
      XCTAssertEqual(file[3].value, 3)
      XCTAssertEqual(file[4].value, 4)
    }
    file.flush()
    XCTAssertNil(file.failure)
  }

  /// Records never written read as zero bytes, before and after the last one written.
  func testUnwrittenRecordsAreZero() throws {
    let file = try TemporaryRecordFile<Record>(prefix: "test-records", blockByteCount: 4 * 16)
    file[9] = Record(time: 9, value: 9)
    XCTAssertEqual(file.count, 10)
    XCTAssertEqual(file[0], Record(time: 0, value: 0))
    XCTAssertEqual(file[9], Record(time: 9, value: 9))
    XCTAssertEqual(file[20], Record(time: 0, value: 0))
  }

  /// A directory that cannot take a file is a clear error, not a trap.
  func testAMissingDirectoryIsAClearError() {
    XCTAssertThrowsError(
      try TemporaryRecordFile<Record>(prefix: "test-records", in: "/nonexistent/opencoremotion")
    ) { error in
      XCTAssertTrue(
        "\(error)".contains("cannot create a temporary file in /nonexistent"), "\(error)")
      XCTAssertTrue("\(error)".contains("TMPDIR"), "\(error)")
    }
  }

  /// The file is unlinked at once: nothing with its prefix is left in the directory.
  func testNothingIsLeftInTheDirectory() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("temporary-record-file-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = try TemporaryRecordFile<Record>(prefix: "test-records", in: directory.path)
    file.append(Record(time: 1, value: 1))
    file.flush()
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [])
    XCTAssertEqual(file[0].value, 1)
  }
}
