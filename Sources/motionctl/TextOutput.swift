// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Buffered text output to standard output or to a file. A file is written under a temporary name
/// and renamed into place by ``finish()``, so a failed run never leaves a half-written file that
/// looks complete.
final class TextOutput {
  private let handle: FileHandle
  private let temporaryURL: URL?
  private let finalURL: URL?
  private var buffer = Data()

  /// Output to `path`, or to standard output when `path` is `nil` or `-`.
  init(path: String?) throws {
    guard let path, path != "-" else {
      handle = .standardOutput
      temporaryURL = nil
      finalURL = nil
      return
    }
    let url = URL(fileURLWithPath: path)
    let directory = url.deletingLastPathComponent()
    guard FileManager.default.fileExists(atPath: directory.path) else {
      throw CLIError("cannot write \(path): folder \(directory.path) does not exist")
    }
    let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).partial-\(getpid())")
    guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
      throw CLIError("cannot write \(path): permission denied or read-only location")
    }
    handle = try FileHandle(forWritingTo: temporary)
    temporaryURL = temporary
    finalURL = url
  }

  /// Appends a line.
  func writeLine(_ line: String) throws {
    buffer.append(contentsOf: line.utf8)
    buffer.append(0x0A)
    if buffer.count >= 1 << 16 { try flush() }
  }

  private func flush() throws {
    guard !buffer.isEmpty else { return }
    try handle.write(contentsOf: buffer)
    buffer.removeAll(keepingCapacity: true)
  }

  /// Flushes and, for a file, moves it into place.
  func finish() throws {
    try flush()
    guard let temporaryURL, let finalURL else { return }
    try handle.close()
    if FileManager.default.fileExists(atPath: finalURL.path) {
      try FileManager.default.removeItem(at: finalURL)
    }
    try FileManager.default.moveItem(at: temporaryURL, to: finalURL)
  }

  /// Drops a partly written file.
  func abandon() {
    guard let temporaryURL else { return }
    try? handle.close()
    try? FileManager.default.removeItem(at: temporaryURL)
  }
}
