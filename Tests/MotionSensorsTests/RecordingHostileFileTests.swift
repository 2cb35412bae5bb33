// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import MotionSensors

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Hostile files from a tester's attack on the readers: archives with thousands of members,
/// damaged or corrupted archives, FIFOs where a recording should be, rows of thousands of cells,
/// oversized metadata, and Sensor Logger files on timestamps of their own. Each gets a clear
/// ``RecordingError`` or a counted skip, never a hang, a silent loss or unbounded memory.
final class RecordingHostileFileTests: XCTestCase {
  /// Sensor Logger rows `time,seconds_elapsed,z,y,x` at 100 Hz, `offset` nanoseconds late.
  private func sensorLoggerRows(_ count: Int, z: Double, offset: Int = 0) -> String {
    "time,seconds_elapsed,z,y,x\n"
      + (0..<count).map { i in
        "\(1_700_000_000_000_000_000 + i * 10_000_000 + offset),\(Double(i) * 0.01),\(z),0.1,0.2\n"
      }.joined()
  }

  private func assertRecordingError(
    _ expression: @autoclosure () throws -> Any, _ kind: RecordingError.Kind,
    containing text: String, file: StaticString = #filePath, line: UInt = #line
  ) {
    XCTAssertThrowsError(try expression(), file: file, line: line) { error in
      guard let error = error as? RecordingError else {
        return XCTFail("not a RecordingError: \(error)", file: file, line: line)
      }
      XCTAssertEqual(error.kind, kind, "\(error)", file: file, line: line)
      XCTAssertTrue("\(error)".contains(text), "\(error)", file: file, line: line)
    }
  }

  // MARK: - Archives with many members (finding 1)

  /// Members are found through an index built once per archive: every one of 2000 members is
  /// looked up and read (through ZIPFoundation's `archive[path]` this was quadratic: 2000 members
  /// took 7 s, 6000 more than a minute), and the export among them is detected and read.
  func testArchiveWithThousandsOfMembersIsIndexedOnce() throws {
    let folder = try RecordingFixtureFolder()
    var members = [
      ("Metadata.csv", "platform,standardisation\nandroid,false\n"),
      ("TotalAcceleration.csv", sensorLoggerRows(3, z: 9.8)),
      ("Gyroscope.csv", sensorLoggerRows(3, z: 0)),
    ]
    members += (0..<2000).map { ("d/\($0).txt", "\($0)\n") }
    let url = folder.url.appendingPathComponent("many.zip")
    try StoredZipArchive(members).write(to: url)

    XCTAssertEqual(try RecordingFormat.detect(url), .sensorLogger)
    let samples = try RecordingReader.readSamples(url)
    XCTAssertEqual(samples.compactMap(\.accelerometer).count, 3)
    XCTAssertEqual(samples.compactMap(\.gyroscope).count, 3)

    let container = try RecordingContainer(url)
    XCTAssertEqual(container.paths.count, 2003)
    XCTAssertEqual(container.path(named: "1999.TXT"), "d/1999.txt")
    for i in 0..<2000 {
      let path = "d/\(i).txt"
      XCTAssertEqual(try container.size(path), "\(i)\n".utf8.count)
      XCTAssertEqual(try container.firstLine(path), "\(i)")
    }
    // Beyond 10 000 entries an archive is refused before the index grows further.
    let tooMany = folder.url.appendingPathComponent("too-many.zip")
    try StoredZipArchive((0...10_000).map { ("\($0)", "") }).write(to: tooMany)
    assertRecordingError(
      try RecordingFormat.detect(tooMany), .unreadable, containing: "holds more than 10000 entries")
  }

  /// A phyphox export has a handful of tables; thousands are refused with a count (each table
  /// read holds a temporary file open), and detection probes a bounded number of them.
  func testArchiveWithThousandsOfTablesIsRefusedClearly() throws {
    let folder = try RecordingFixtureFolder()
    let tables = (0..<2000).map { ("\($0).csv", "a\n") }
    let phyphox = folder.url.appendingPathComponent("many_phyphox.zip")
    try StoredZipArchive([("meta/time.csv", "")] + tables).write(to: phyphox)
    XCTAssertEqual(try RecordingFormat.detect(phyphox), .phyphox)
    assertRecordingError(
      try RecordingReader.open(phyphox), .unreadable,
      containing: "holds 2000 CSV tables; a phyphox export has at most 256")

    let plain = folder.url.appendingPathComponent("many.zip")
    try StoredZipArchive(tables).write(to: plain)
    assertRecordingError(
      try RecordingFormat.detect(plain), .unknownFormat,
      containing: "cannot tell the recording format: a zip archive")
  }

  /// A folder that is no recording's (a wrong path, or an empty one, which names the working
  /// directory) is called a folder in the error, which used to blame a "header" it does not have.
  func testAFolderThatIsNoRecordingIsCalledAFolder() throws {
    let folder = try RecordingFixtureFolder()
    try "a,b\n1,2\n".write(
      to: folder.url.appendingPathComponent("notes.csv"), atomically: true, encoding: .utf8)
    assertRecordingError(
      try RecordingFormat.detect(folder.url), .unknownFormat,
      containing: "cannot tell the recording format: a folder, and the names and headers of its")
    let file = folder.url.appendingPathComponent("notes.csv")
    assertRecordingError(
      try RecordingFormat.detect(file), .unknownFormat,
      containing: "cannot tell the recording format: a file whose header matches no format")
  }

  // MARK: - Folders with many entries

  /// Creates `count` empty files in `folder`, `perFolder` to a sub-folder.
  private func fill(_ folder: URL, files count: Int, perFolder: Int = 100) throws {
    for index in 0..<count {
      let sub = folder.appendingPathComponent("d\(index / perFolder)")
      if index % perFolder == 0 {
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
      }
      XCTAssertTrue(
        FileManager.default.createFile(
          atPath: sub.appendingPathComponent("\(index)").path, contents: nil))
    }
  }

  /// `replay:/tmp` looked at every entry of every sub-folder (77 000 on the machine it was tried
  /// on) for over 20 s. A folder is searched through at most 10 000 entries, then refused saying
  /// so.
  func testFolderWithThousandsOfEntriesIsRefusedClearly() throws {
    let folder = try RecordingFixtureFolder()
    try fill(folder.url, files: 10_001)
    assertRecordingError(
      try RecordingFormat.detect(folder.url), .unreadable,
      containing: "holds more than 10000 files and folders within three levels")
  }

  /// Files are looked for three levels deep: a folder at the third level is not opened, so a
  /// recording beside a deep heap of files is found (its files used to be listed one by one).
  func testFoldersBelowTheThirdLevelAreNotOpened() throws {
    let folder = try RecordingFixtureFolder()
    for (name, content) in [
      ("Metadata.csv", "platform,standardisation\nandroid,false\n"),
      ("TotalAcceleration.csv", sensorLoggerRows(3, z: 9.8)),
      ("Gyroscope.csv", sensorLoggerRows(3, z: 0)),
    ] {
      try Data(content.utf8).write(to: folder.url.appendingPathComponent(name))
    }
    try fill(folder.url.appendingPathComponent("a/b/c"), files: 10_001, perFolder: 10_001)
    XCTAssertEqual(try RecordingFormat.detect(folder.url), .sensorLogger)
    XCTAssertEqual(try RecordingContainer(folder.url).paths.count, 3)
  }

  // MARK: - FIFOs and other files that are not regular (finding 2)

  /// A FIFO without a writer blocked `open` forever; every way of reading one now refuses it at
  /// once, saying what it is.
  func testFIFOIsRefusedWithoutBlocking() throws {
    let folder = try RecordingFixtureFolder()
    let fifo = folder.url.appendingPathComponent("rec.csv")
    XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
    let text = "is a pipe (FIFO), not a regular file"
    assertRecordingError(try RecordingFormat.detect(fifo), .unreadable, containing: text)
    assertRecordingError(try RecordingReader.open(fifo), .unreadable, containing: text)
    for format in RecordingFormat.allCases where format != .columns {
      assertRecordingError(
        try RecordingReader.open(fifo, format: format), .unreadable, containing: text)
    }
    let mapping = try ColumnMapping(parsing: "t=t,ax=ax,ay=ay,az=az")
    assertRecordingError(
      try RecordingReader.open(fifo, options: .init(columnMapping: mapping)), .unreadable,
      containing: text)
    XCTAssertFalse(RecordingContainer.isZipArchive(fifo))
    XCTAssertEqual(SharedTableLayout.layouts(of: fifo), [])
    // A character device is refused the same way.
    assertRecordingError(
      try RecordingReader.open(URL(fileURLWithPath: "/dev/null"), format: .opencoremotion),
      .unreadable, containing: "is a character device")
  }

  /// Side files found automatically are checked too: a FIFO in an export folder is an error naming
  /// it, not a hang and not a file passed over as empty.
  func testFIFOBesideARecordingIsRefused() throws {
    let folder = try RecordingFixtureFolder()
    try folder.write("platform\nandroid\n", to: "slg/Metadata.csv")
    try folder.write(sensorLoggerRows(3, z: 9.8), to: "slg/TotalAcceleration.csv")
    XCTAssertEqual(mkfifo(folder.url.appendingPathComponent("slg/Gyroscope.csv").path, 0o600), 0)
    assertRecordingError(
      try RecordingReader.open(folder.url.appendingPathComponent("slg")), .unreadable,
      containing: "slg/Gyroscope.csv: is a pipe (FIFO)")

    try folder.write(
      "#timestamp [ns],w_RS_S_x [rad s^-1],w_RS_S_y [rad s^-1],w_RS_S_z [rad s^-1],a_RS_S_x [m s^-2],a_RS_S_y [m s^-2],a_RS_S_z [m s^-2]\n"
        + "1000000000,0,0,0,0,0,9.8\n",
      to: "eu/mav0/imu0/data.csv")
    XCTAssertEqual(
      mkfifo(folder.url.appendingPathComponent("eu/mav0/imu0/sensor.yaml").path, 0o600), 0)
    assertRecordingError(
      try RecordingReader.open(folder.url.appendingPathComponent("eu")), .unreadable,
      containing: "sensor.yaml: is a pipe (FIFO)")
  }

  // MARK: - Rows of thousands of cells (finding 4)

  /// A row may have at most 4096 cells; a header or data row of 16 MiB of separators took
  /// 300–600 MB and up to 28 s before failing.
  func testRowsWithTooManyCellsAreRefused() throws {
    let folder = try RecordingFixtureFolder()
    let header = "# OpenCoreMotion CSV\nt,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z"
    let wideHeader = try folder.write(
      header + String(repeating: ",", count: 5000) + "\n0,0,0,9.81,0,0,0\n", to: "widehdr.csv")
    assertRecordingError(
      try RecordingReader.open(wideHeader), .malformedRow,
      containing: "widehdr.csv:2: the line has more than 4096 cells")
    let wideRow = try folder.write(
      header + "\n0,0,0,9.81,0,0,0\n0.01" + String(repeating: ",", count: 5000) + "\n",
      to: "widerow.csv")
    assertRecordingError(
      try RecordingReader.readSamples(wideRow), .malformedRow,
      containing: "widerow.csv:4: the line has more than 4096 cells")
    // Exactly 4096 cells are still a table.
    let padding = String(repeating: ",x", count: 4096 - 7)
    let widest = try folder.write(
      header + padding + "\n0,0,0,9.81,0,0,0" + String(repeating: ",", count: 4096 - 7) + "\n",
      to: "widest.csv")
    XCTAssertEqual(try RecordingReader.readSamples(widest).count, 1)
    // A mapping naming a missing column lists a few of the columns, not all of them.
    let mapping = try ColumnMapping(parsing: "t=t,ax=nope,ay=acc_y,az=acc_z")
    let file = try folder.write(
      "t" + padding + "\n0" + String(repeating: ",", count: 4089) + "\n", to: "m.csv")
    XCTAssertThrowsError(try RecordingReader.open(file, options: .init(columnMapping: mapping))) {
      XCTAssertTrue("\($0)".contains("… (4090 columns)"), "\($0)")
      XCTAssertLessThan("\($0)".count, 400)
    }
  }

  // MARK: - Oversized metadata (finding 5)

  /// Metadata read whole (phyphox `meta/*.csv`, EuRoC `sensor.yaml`, Sensor Logger `Metadata.csv`,
  /// the OpenCoreMotion `#` header) is refused past 1 MiB instead of filling memory.
  func testOversizedMetadataIsRefused() throws {
    let folder = try RecordingFixtureFolder()
    let big = (0..<70_000).map { "key\($0),value\($0)\n" }.joined()  // about 1.3 MB
    XCTAssertGreaterThan(big.utf8.count, 1 << 20)
    try folder.write(
      "\"Time (s)\",\"Acceleration x (m/s^2)\",\"Acceleration y (m/s^2)\",\"Acceleration z (m/s^2)\"\n0,0,0,9.81\n",
      to: "ph/Accelerometer.csv")
    try folder.write("\"property\",\"value\"\n" + big, to: "ph/meta/device.csv")
    assertRecordingError(
      try RecordingReader.open(folder.url.appendingPathComponent("ph")), .unreadable,
      containing: "meta/device.csv: is larger than 1 MiB")
    // In an archive too.
    let zip = try folder.writeZip(
      [
        (
          "Accelerometer.csv",
          "\"Time (s)\",\"Acceleration x (m/s^2)\",\"Acceleration y (m/s^2)\",\"Acceleration z (m/s^2)\"\n0,0,0,9.81\n"
        ),
        (
          "meta/time.csv",
          "\"event\",\"experiment time\",\"system time\"\n"
            + (0..<60_000).map { "START,\($0),1700000000.5\n" }.joined()
        ),
      ], to: "ph.zip")
    assertRecordingError(
      try RecordingReader.open(zip), .unreadable, containing: "meta/time.csv: is larger than 1 MiB")

    try folder.write(
      "#timestamp [ns],w_RS_S_x [rad s^-1],w_RS_S_y [rad s^-1],w_RS_S_z [rad s^-1],a_RS_S_x [m s^-2],a_RS_S_y [m s^-2],a_RS_S_z [m s^-2]\n"
        + "1000000000,0,0,0,0,0,9.8\n",
      to: "eu/mav0/imu0/data.csv")
    try folder.write(String(repeating: "a: b\n", count: 250_000), to: "eu/mav0/imu0/sensor.yaml")
    assertRecordingError(
      try RecordingReader.open(folder.url.appendingPathComponent("eu")), .unreadable,
      containing: "sensor.yaml: is larger than 1 MiB")

    let ocm = try folder.write(
      "# OpenCoreMotion CSV\n" + (0..<100_000).map { "# k\($0): v\n" }.joined()
        + "t,acc_x,acc_y,acc_z\n0,0,0,9.81\n", to: "header.csv")
    assertRecordingError(
      try RecordingReader.open(ocm), .malformedHeader,
      containing: "the # header is longer than 1 MiB")

    try folder.write(
      "platform," + (0..<3000).map { "k\($0)" }.joined(separator: ",") + "\nandroid,"
        + (0..<3000).map { _ in String(repeating: "v", count: 400) }.joined(separator: ",") + "\n",
      to: "slg/Metadata.csv")
    try folder.write(sensorLoggerRows(3, z: 9.8), to: "slg/TotalAcceleration.csv")
    assertRecordingError(
      try RecordingReader.open(folder.url.appendingPathComponent("slg")), .unreadable,
      containing: "Metadata.csv:2: the metadata rows are longer than 1 MiB")
  }

  // MARK: - Sensor Logger user acceleration plus gravity (finding 8)

  /// `Accelerometer.csv` 5 ms after `Gravity.csv`: every sample is paired with the nearest gravity
  /// sample (all of them used to be dropped silently, leaving a recording without accelerometer).
  func testUserAccelerationAndGravityOnTheirOwnTimestampsArePaired() throws {
    let folder = try RecordingFixtureFolder()
    try folder.write("platform,standardisation\nandroid,false\n", to: "slg/Metadata.csv")
    try folder.write(sensorLoggerRows(300, z: 0.25, offset: 5_000_000), to: "slg/Accelerometer.csv")
    try folder.write(sensorLoggerRows(300, z: 9.5), to: "slg/Gravity.csv")
    try folder.write(sensorLoggerRows(300, z: 0), to: "slg/Gyroscope.csv")
    var stream = try RecordingReader.open(folder.url.appendingPathComponent("slg"))
    let accelerometer = try stream.collect().compactMap(\.accelerometer)
    XCTAssertEqual(accelerometer.count, 300)
    XCTAssertTrue(accelerometer.allSatisfy { abs($0.z - 9.75) < 1e-12 && abs($0.x - 0.4) < 1e-12 })
    XCTAssertEqual(stream.skippedRowCount, 0)

    // Gravity missing for a stretch: the samples more than 20 ms from any are skipped and counted.
    let gravity = sensorLoggerRows(300, z: 9.5).split(
      separator: "\n", omittingEmptySubsequences: false)
    let gapped = (gravity[0...100] + gravity[201...]).joined(separator: "\n")
    try folder.write(gapped, to: "slg/Gravity.csv")
    stream = try RecordingReader.open(folder.url.appendingPathComponent("slg"))
    let kept = try stream.collect().compactMap(\.accelerometer).count
    // Gravity rows 100…199 are gone: user samples 101…197 (5 ms after their instants) are more
    // than 20 ms from gravity rows 99 and 200.
    XCTAssertEqual(kept + stream.skippedRowCount, 300)
    XCTAssertEqual(stream.skippedRowCount, 97)
  }

  /// When not one sample pairs, reading fails naming both files instead of yielding a recording
  /// without an accelerometer.
  func testUserAccelerationWithoutNearbyGravityIsAnError() throws {
    let folder = try RecordingFixtureFolder()
    try folder.write("platform\nandroid\n", to: "slg/Metadata.csv")
    try folder.write(
      sensorLoggerRows(50, z: 0.25, offset: 3_000_000_000), to: "slg/Accelerometer.csv")
    try folder.write(sensorLoggerRows(50, z: 9.5), to: "slg/Gravity.csv")
    try folder.write(sensorLoggerRows(50, z: 0), to: "slg/Gyroscope.csv")
    assertRecordingError(
      try RecordingReader.readSamples(folder.url.appendingPathComponent("slg")), .malformedRow,
      containing: "Accelerometer.csv: none of its 50 samples has a sample of")
  }

  // MARK: - Checksums (finding 12)

  /// A member whose bytes no longer match its CRC-32 is refused (it was read as if sound).
  func testCorruptedArchiveMemberFailsItsChecksum() throws {
    let folder = try RecordingFixtureFolder()
    var archive = StoredZipArchive([
      ("Metadata.csv", "platform\nandroid\n"),
      ("TotalAcceleration.csv", sensorLoggerRows(30, z: 9.8)),
      ("Gyroscope.csv", sensorLoggerRows(30, z: 0)),
    ])
    let url = folder.url.appendingPathComponent("crc.zip")
    try archive.write(to: url)
    XCTAssertEqual(try RecordingReader.readSamples(url).compactMap(\.accelerometer).count, 30)
    // One digit changed inside the data of TotalAcceleration.csv.
    let position = archive.dataOffsets[1] + 40
    archive.data[position] =
      archive.data[position] == UInt8(ascii: "7") ? UInt8(ascii: "8") : UInt8(ascii: "7")
    try archive.write(to: url)
    assertRecordingError(
      try RecordingReader.readSamples(url), .unreadable,
      containing: "crc.zip/TotalAcceleration.csv: CRC-32 mismatch")
    assertRecordingError(
      try RecordingContainer(url).bytes("TotalAcceleration.csv"), .unreadable,
      containing: "the archive is corrupt")
  }

  // MARK: - Deflate streams that never end (review of 2026-11-30)

  /// A member marked deflated whose data opens a stored block longer than the rest of the file
  /// (`00 FF FF 00 00`: not final, 65 535 bytes) leaves zlib waiting for input without an error.
  /// ZIPFoundation's Linux inflate loop then read empty chunks past the end of the file and spun
  /// at full CPU for good, in `RecordingReader.open` (reading the table) and in
  /// `RecordingFormat.detect` (a member's first line). The member is now read within its declared
  /// compressed size, and a stream still open there is a damaged member. Each call runs on its own
  /// thread under a deadline, so a regression fails here instead of hanging the suite.
  func testADeflateStreamThatNeverEndsIsRefusedInsteadOfSpinning() throws {
    let folder = try RecordingFixtureFolder()
    func write(_ name: String, _ members: [(String, String)], open member: Int) throws -> URL {
      var archive = StoredZipArchive(members)
      let data = archive.dataOffsets[member]
      for (index, byte) in [UInt8]([0x00, 0xFF, 0xFF, 0x00, 0x00]).enumerated() {
        archive.data[data + index] = byte
      }
      // Method 8 (deflate) in the local header and in the central-directory record.
      let local = data - 30 - members[member].0.utf8.count
      archive.data[local + 8] = 8
      archive.data[archive.directoryOffsets[member] + 10] = 8
      let url = folder.url.appendingPathComponent(name)
      try archive.write(to: url)
      return url
    }
    let sensorLogger = try write(
      "never-ending.zip",
      [("Metadata.csv", "platform\nandroid\n"), ("TotalAcceleration.csv", "abcdefgh,ijkl\n")],
      open: 1)
    let single = try write("never-ending-line.zip", [("x.csv", "abcdefghijkl")], open: 0)

    // What `work` threw, run on its own thread; a call still running after 20 s fails the test.
    func thrown(by name: String, _ work: @escaping @Sendable () throws -> Void) -> (any Error)? {
      let error = Locked<(any Error)?>(nil)
      let done = DispatchSemaphore(value: 0)
      Thread.detachNewThread {
        do { try work() } catch let thrown { error.withLock { $0 = thrown } }
        done.signal()
      }
      guard done.wait(timeout: .now() + 20) == .success else {
        XCTFail("\(name) did not return in 20 s")
        return nil
      }
      return error.withLock { $0 }
    }
    func assertUnreadable(_ error: (any Error)?, containing text: String) {
      guard let error = error as? RecordingError else {
        return XCTFail("not a RecordingError: \(String(describing: error))")
      }
      XCTAssertEqual(error.kind, .unreadable, "\(error)")
      XCTAssertTrue("\(error)".contains(text), "\(error)")
    }
    assertUnreadable(
      thrown(by: "open") { _ = try RecordingReader.readSamples(sensorLogger) },
      containing: "TotalAcceleration.csv: damaged archive member: its deflate stream does not end")
    let detection = thrown(by: "detect") { _ = try RecordingFormat.detect(single) }
    XCTAssertNotNil(detection as? RecordingError, "\(String(describing: detection))")
    assertUnreadable(
      thrown(by: "first line") { _ = try RecordingContainer(single).firstLine("x.csv") },
      containing: "its deflate stream does not end within its data")
  }

  /// A stored member whose declared size runs past the end of the file is refused before any of
  /// it is read (ZIPFoundation would hand out empty chunks past the end for as long as the size
  /// says).
  func testAStoredMemberRunningPastTheEndIsRefused() throws {
    let folder = try RecordingFixtureFolder()
    var archive = StoredZipArchive([("x.csv", "t,a\n0,1\n")])
    archive.put32(0x7FFF_0000, at: archive.directoryOffsets[0] + 20)
    let url = folder.url.appendingPathComponent("long.zip")
    try archive.write(to: url)
    assertRecordingError(
      try RecordingContainer(url).bytes("x.csv"), .unreadable,
      containing: "runs past the end of the archive")
  }

  // MARK: - Messages (finding 14)

  /// Damaged archives say so instead of "cannot tell the recording format", with the format given
  /// or detected.
  func testDamagedArchivesSayWhatIsWrong() throws {
    let folder = try RecordingFixtureFolder()
    let members = [
      ("Metadata.csv", "platform\nandroid\n"),
      ("TotalAcceleration.csv", sensorLoggerRows(3, z: 9.8)),
    ]
    func write(_ name: String, _ damage: (inout StoredZipArchive) -> Void) throws -> URL {
      var archive = StoredZipArchive(members)
      damage(&archive)
      let url = folder.url.appendingPathComponent(name)
      try archive.write(to: url)
      return url
    }
    let directoryPastEnd = try write("cdoff.zip") {
      $0.put32(0x7FFF_FFFF, at: $0.endRecordOffset + 16)
    }
    let localPastEnd = try write("lhoff.zip") { archive in
      for offset in archive.directoryOffsets { archive.put32(0x7FFF_FFF0, at: offset + 42) }
    }
    let encrypted = try write("encrypted.zip") { archive in
      for offset in archive.directoryOffsets { archive.data[offset + 8] |= 1 }
    }
    for format in [nil, RecordingFormat.sensorLogger] {
      assertRecordingError(
        try RecordingReader.open(directoryPastEnd, format: format), .unreadable,
        containing: "not a readable zip archive (the central directory is damaged at entry 1")
      assertRecordingError(
        try RecordingReader.open(localPastEnd, format: format), .unreadable,
        containing: "the local header of member \"Metadata.csv\" is missing or damaged")
      assertRecordingError(
        try RecordingReader.open(encrypted, format: format), .unreadable,
        containing: "member \"Metadata.csv\" is encrypted; encrypted zip members are not supported")
    }
    let empty = folder.url.appendingPathComponent("empty.zip")
    try
      (Data(
        [0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 0, count: 26) + [0x50, 0x4B, 0x05, 0x06])
      + Data(count: 18)).write(to: empty)
    assertRecordingError(
      try RecordingFormat.detect(empty), .unreadable, containing: "holds no files")
  }

  /// A NUL (or another control character) in a cell is shown escaped: `"0"` alone looked like a
  /// valid number being rejected.
  func testControlCharactersInACellAreShownEscaped() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(
      "# OpenCoreMotion CSV\nt,acc_x,acc_y,acc_z\n1.5,0,0\u{0},9.8\n", to: "nul.csv")
    assertRecordingError(
      try RecordingReader.readSamples(url), .malformedRow,
      containing: "column \"acc_y\": expected a number, found \"0\\u{0}\"")
  }
}
