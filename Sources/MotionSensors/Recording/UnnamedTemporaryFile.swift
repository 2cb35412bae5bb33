// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Opens a new file for reading and writing in `directory` (by default the temporary directory:
/// `$TMPDIR`, else `/tmp`) and unlinks it at once: mode 0600 (motion data is personal),
/// close-on-exec, and gone with its descriptor, so nothing is left behind when the process ends,
/// however it ends.
///
/// - Parameters:
///   - prefix: the start of the file's short-lived name (`prefix-XXXXXX`).
///   - directory: where to create it.
/// - Returns: the descriptor, or `nil` with `errno` set (the directory is missing, full or not
///   writable).
package func openUnnamedTemporaryFile(
  prefix: String, in directory: String = NSTemporaryDirectory()
) -> Int32? {
  var template = Array(
    (directory as NSString).appendingPathComponent("\(prefix)-XXXXXX").utf8CString)
  // mkstemp creates the file with mode 0600.
  let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
  guard descriptor >= 0 else { return nil }
  unlink(template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
  _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
  return descriptor
}
