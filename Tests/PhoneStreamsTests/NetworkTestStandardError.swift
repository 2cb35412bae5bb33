// SPDX-License-Identifier: Apache-2.0

import Foundation

/// This process's standard error, sent to a temporary file until ``finish()`` puts it back.
///
/// SwiftNIO reports some misuse, such as work scheduled on an event loop that has been shut down,
/// only by writing to file descriptor 2, so a test that must show it does not happen reads what
/// was written meanwhile. What was captured is copied to the real standard error afterwards, so
/// the test log loses nothing.
final class NetworkStandardErrorCapture {
  private let saved: Int32
  private let path: String
  private var captured: String?

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// Starts capturing.
  init() throws {
    path =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("stderr-\(UUID().uuidString).txt").path
    let file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard file >= 0 else { throw Failure(description: "cannot create \(path) (errno \(errno))") }
    defer { close(file) }
    fflush(nil)  // Every stdio stream, standard error among them.
    saved = dup(STDERR_FILENO)
    guard saved >= 0, dup2(file, STDERR_FILENO) >= 0 else {
      if saved >= 0 { close(saved) }
      throw Failure(description: "cannot redirect standard error (errno \(errno))")
    }
  }

  deinit { _ = finish() }

  /// Puts standard error back (once) and returns what was written to it while captured.
  func finish() -> String {
    if let captured { return captured }
    fflush(nil)  // Every stdio stream, standard error among them.
    dup2(saved, STDERR_FILENO)
    close(saved)
    let data = FileManager.default.contents(atPath: path) ?? Data()
    try? FileManager.default.removeItem(atPath: path)
    FileHandle.standardError.write(data)
    let text = String(decoding: data, as: UTF8.self)
    captured = text
    return text
  }
}
