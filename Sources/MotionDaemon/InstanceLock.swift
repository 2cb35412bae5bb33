// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// An exclusive `flock` on `SOCKET.lock` beside the socket, held for the daemon's life.
///
/// Probing the socket, removing a stale one and binding a new one are separate steps: two daemons
/// started at the same instant could both find no listener, and the later one would unlink the
/// earlier one's fresh socket and orphan it. Whoever holds this lock is the only daemon touching
/// the socket path. The kernel drops the lock when the process dies (even by `kill -9`), so a
/// crash never leaves it stale; the file itself is left in place (unlinking a lock file lets a
/// third daemon lock a new file while the second still holds the old one).
final class InstanceLock: Sendable {
  /// The locked file's descriptor; closed by ``release()`` (or left to the process's exit).
  private let descriptor: Int32
  let path: String

  /// Why the lock could not be taken, for people.
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// Takes the lock for `socketPath` without waiting; fails when another daemon holds it.
  init(socketPath: String) throws {
    path = socketPath + ".lock"
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard fd >= 0 else {
      let code = errno
      throw Failure(
        description: "cannot open the lock file \(path): \(String(cString: strerror(code)))")
    }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
      let code = errno
      _ = close(fd)
      if code == EWOULDBLOCK {
        throw Failure(
          description: "another motiond is already running for \(socketPath) (it holds \(path))")
      }
      throw Failure(description: "cannot lock \(path): \(String(cString: strerror(code)))")
    }
    descriptor = fd
  }

  /// Releases the lock (at shutdown, after the socket file is gone).
  func release() {
    _ = close(descriptor)
  }
}
