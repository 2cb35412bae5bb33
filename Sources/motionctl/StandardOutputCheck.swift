// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A command whose printed output could not be written (a full disk, `> /dev/full`) must not end
/// with status 0: `print` drops write errors. The check is made once, when the process exits, by
/// flushing C's buffered streams, which `print` writes through; the output's last buffer is still
/// pending then, so a device that refuses writes refuses that one too.
enum StandardOutputCheck {
  /// Registers the check to run at exit.
  static func install() {
    atexit {
      // All streams: Swift 6 does not let `stdout`, a mutable C global, be named here.
      guard fflush(nil) != 0 else { return }
      let code = errno
      // A reader that went away (`motionctl monitor | head`) is no failure worth a message; the
      // status says what a shell's own SIGPIPE death would (where SIGPIPE is ignored).
      if code == EPIPE { _exit(141) }
      let message = "Error: cannot write the output: \(String(cString: strerror(code)))\n"
      FileHandle.standardError.write(Data(message.utf8))
      // EX_IOERR; `_exit`, because `exit` may not be called again from an exit handler.
      _exit(74)
    }
  }
}
