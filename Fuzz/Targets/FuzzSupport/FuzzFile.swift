// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A fuzz input written to a file, for parsers that read from a URL: in memory-backed `/dev/shm`
/// where it exists (a fuzzer runs thousands of inputs a second), else the temporary folder.
public enum FuzzFile {
  /// Writes `bytes` to this process's scratch file with the given extension and returns its URL;
  /// the next call overwrites it.
  public static func write(_ bytes: UnsafeBufferPointer<UInt8>, pathExtension: String) -> URL {
    let folder =
      FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    let url = URL(fileURLWithPath: "\(folder)/opencoremotion-fuzz-\(getpid()).\(pathExtension)")
    FileManager.default.createFile(atPath: url.path, contents: Data(buffer: bytes))
    return url
  }

  /// Deletes a file written by ``write(_:pathExtension:)``.
  public static func remove(_ url: URL) { try? FileManager.default.removeItem(at: url) }
}
