// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest
import ZIPFoundation

@testable import MotionSensors

/// Format detection reads the first line of every member of an archive. It used to inflate each
/// member whole (up to 512 MiB apiece, into a temporary file) for that line; it now stops at the
/// first line break. (Found by the hostile-input review of 2026-11-30.)
final class RecordingContainerFirstLineTests: XCTestCase {
  /// The same first lines from a folder and from an archive of the same files: a header with more
  /// rows, CRLF line ends, a file without a line break, an empty file, a byte-order mark.
  func testAnArchiveMemberGivesTheFirstLineAFolderGives() throws {
    let folder = try RecordingFixtureFolder()
    let files = [
      ("a.csv", "t,ax,ay,az\n0,1,2,3\n1,2,3,4\n"),
      ("crlf.csv", "Time (s),x\r\n0,1\r\n"),
      ("one-line.csv", "only a header"),
      ("empty.csv", ""),
      ("bom.csv", "\u{FEFF}time,seconds_elapsed,z,y,x\n1,0,0,0,1\n"),
    ]
    for (name, text) in files { try folder.write(text, to: "plain/" + name) }
    let zip = try folder.writeZip(files, to: "same.zip")
    let plain = try RecordingContainer(folder.url.appendingPathComponent("plain"))
    let archive = try RecordingContainer(zip)
    for (name, _) in files {
      XCTAssertEqual(try archive.firstLine(name), try plain.firstLine(name), name)
    }
    XCTAssertEqual(try archive.firstLine("crlf.csv"), "Time (s),x")
    XCTAssertEqual(try archive.firstLine("bom.csv"), "time,seconds_elapsed,z,y,x")
    XCTAssertThrowsError(try archive.firstLine("missing.csv"))
  }

  /// A header followed by 16 MiB of zeros (1000:1, refused as a zip bomb when read): its first
  /// line comes without inflating the rest, so detection sees what the member claims to be.
  func testTheFirstLineOfAHugeMemberComesWithoutInflatingIt() throws {
    let folder = try RecordingFixtureFolder()
    let url = folder.url.appendingPathComponent("huge.zip")
    let archive = try Archive(url: url, accessMode: .create)
    let header = Data("t,ax,ay,az\n".utf8)
    let size = 16 << 20
    try archive.addEntry(
      with: "Accelerometer.csv", type: .file, uncompressedSize: Int64(size),
      compressionMethod: .deflate
    ) { position, count in
      var chunk = Data(count: count)
      let start = Int(position)
      if start < header.count {
        let taken = Swift.min(count, header.count - start)
        chunk.replaceSubrange(0..<taken, with: header[start..<(start + taken)])
      }
      return chunk
    }
    let container = try RecordingContainer(url)
    XCTAssertEqual(try container.firstLine("Accelerometer.csv"), "t,ax,ay,az")
    XCTAssertThrowsError(try container.bytes("Accelerometer.csv"), "read whole, still refused")
  }

  /// A first line longer than the limit is cut there (it matches no format).
  func testAFirstLineBeyondTheLimitIsCut() throws {
    let folder = try RecordingFixtureFolder()
    let long = String(repeating: "x", count: RecordingContainer.firstLineLimit + 10) + "\n0\n"
    let zip = try folder.writeZip([("long.csv", long)], to: "long.zip")
    let line = try RecordingContainer(zip).firstLine("long.csv")
    XCTAssertEqual(line.utf8.count, RecordingContainer.firstLineLimit)
  }
}
