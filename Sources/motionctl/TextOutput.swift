// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

/// Buffered text output to standard output or to a file.
///
/// A file goes through ``FileReplacement``: a unique 0600 temporary file in the target's folder,
/// synced and renamed over the target by ``finish()``, so a failed run never leaves a half-written
/// file that looks complete. Only a missing path or a regular file is replaced: a folder, a device
/// (`/dev/null`), a pipe or a socket at the path is refused and left as it is.
final class TextOutput {
  private let handle: FileHandle
  private let temporaryPath: String?
  private let finalPath: String?
  private var buffer = Data()

  /// Output to `path`, or to standard output when `path` is `nil` or `-`.
  init(path: String?) throws {
    guard let path, path != "-" else {
      handle = .standardOutput
      temporaryPath = nil
      finalPath = nil
      return
    }
    if let refusal = FileReplacement.refusal(for: path) {
      throw CLIError("cannot write \(path): \(refusal)")
    }
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      throw CLIError("cannot write \(path): folder \(directory) does not exist")
    }
    switch FileReplacement.createTemporary(near: path) {
    case .success(let created):
      handle = FileHandle(fileDescriptor: created.descriptor, closeOnDealloc: true)
      temporaryPath = created.path
    case .failure(let error):
      throw CLIError("cannot write \(path): \(error.reason)")
    }
    finalPath = path
  }

  /// Appends a line.
  func writeLine(_ line: String) throws {
    buffer.append(contentsOf: line.utf8)
    buffer.append(0x0A)
    if buffer.count >= 1 << 16 { try flush() }
  }

  /// Appends text without a line end (a streamed JSON array is one line made of many pieces).
  func write(_ text: String) throws {
    buffer.append(contentsOf: text.utf8)
    if buffer.count >= 1 << 16 { try flush() }
  }

  private func flush() throws {
    guard !buffer.isEmpty else { return }
    try handle.write(contentsOf: buffer)
    buffer.removeAll(keepingCapacity: true)
  }

  /// Flushes and, for a file, syncs it and renames it into place.
  func finish() throws {
    try flush()
    guard let temporaryPath, let finalPath else { return }
    try handle.synchronize()
    try handle.close()
    if case .failure(let error) = FileReplacement.commit(temporary: temporaryPath, to: finalPath) {
      throw CLIError("cannot write \(finalPath): \(error.reason)")
    }
  }

  /// Drops a partly written file.
  func abandon() {
    guard let temporaryPath else { return }
    try? handle.close()
    unlink(temporaryPath)
  }
}
