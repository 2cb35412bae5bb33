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

/// A file whose size is Int64.max (a sparse file, which tmpfs allows) trapped twice: reading its
/// first bytes sized the buffer as `size + 1`, and a window onto it as `max(size, 4095) + 1`. Both
/// now compare before adding, so such a file reads like any other (its start is zeros).
final class RecordingHugeFileSizeTests: XCTestCase {
  /// A sparse file of `Int64.max` bytes in the temporary directory or, when its file system
  /// refuses that size (ext4 stops at 16 TiB), in `/dev/shm`; skips the test when neither allows
  /// it. The caller removes the file.
  private func makeSparseFileOfMaximumSize() throws -> URL {
    let candidates = [
      FileManager.default.temporaryDirectory.path, "/dev/shm",
    ]
    for directory in candidates {
      let path = directory + "/OpenCoreMotion-sparse-\(UUID().uuidString.prefix(8)).csv"
      let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
      guard fd >= 0 else { continue }
      let resized = ftruncate(fd, off_t(Int64.max)) == 0
      close(fd)
      if resized { return URL(fileURLWithPath: path) }
      unlink(path)
    }
    throw XCTSkip("no file system here allows a sparse file of Int64.max bytes")
  }

  /// The first bytes of the huge file are read (zeros), its format is reported as unknown, and a
  /// window onto it holds the default window size, instead of trapping on `size + 1`.
  func testAFileOfInt64MaxBytesDoesNotTrap() throws {
    let url = try makeSparseFileOfMaximumSize()
    defer { unlink(url.path) }
    XCTAssertEqual(try RegularFile.size(url.path), Int.max)
    XCTAssertEqual(try RegularFile.readPrefix(url.path, count: 16), Data(count: 16))
    XCTAssertThrowsError(try RecordingFormat.detect(url)) { error in
      XCTAssertEqual((error as? RecordingError)?.kind, .unknownFormat, "\(error)")
    }
    XCTAssertEqual(SharedTableLayout.layouts(of: url), [])
    let bytes = try CSVBytes(contentsOf: url, windowSize: 1 << 16)
    XCTAssertEqual(bytes.count, 1 << 16)
  }

  /// The window's sizing on its own, without a huge file: a source whose size hint is Int.max (as a
  /// descriptor of such a file reports) gets the default window, and a small file's real size
  /// still gets a window just large enough.
  func testAWindowSizedFromASizeHintOfIntMax() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write("t,ax,ay,az\n0,0,0,9.81\n", to: "small.csv")
    let fd = open(url.path, O_RDONLY | O_CLOEXEC)
    XCTAssertGreaterThanOrEqual(fd, 0)
    let source = CSVByteSource(ownedDescriptor: fd, fileName: "small.csv", size: Int.max)
    let bytes = try CSVBytes(source: source, windowSize: 1 << 16)
    XCTAssertEqual(bytes.count, 22)
    XCTAssertEqual(
      String(decoding: UnsafeBufferPointer(start: bytes.base, count: 3), as: UTF8.self), "t,a")
    let small = try CSVBytes(contentsOf: url)
    XCTAssertEqual(small.count, 22)
  }
}
