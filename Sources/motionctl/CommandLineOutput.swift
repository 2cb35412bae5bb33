// SPDX-License-Identifier: Apache-2.0

import Foundation

// Output helpers shared by the commands (`replay`, `steps`, `altitude`, `monitor`, …), kept in
// one place so that every command words its diagnostics alike.

/// Writes a line to standard error.
func printToStandardError(_ message: String) {
  FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// `error` as said of one of several files on the command line: prefixed with `file` unless
/// its message already begins with that path (most readers' errors name the file they read).
func describing(_ error: any Error, of file: String) -> String {
  let message = "\(error)"
  let path = URL(fileURLWithPath: file).path
  return message.hasPrefix(path) || message.hasPrefix(file) ? message : "\(file): \(message)"
}
