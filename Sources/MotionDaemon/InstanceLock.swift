// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

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
///
/// The history store takes one too, on its directory itself (``HistoryStore``): two daemons on
/// different sockets can share a state directory.
final class InstanceLock: Sendable {
  /// The locked file's descriptor, -1 once released; ``release()`` and `deinit` may both come, and
  /// the lock makes the second a no-op (closing a number twice could close a file opened since).
  private let descriptor: Locked<Int32>
  let path: String

  /// Why the lock could not be taken, for people.
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// Takes the lock for `socketPath` without waiting; fails when another daemon holds it.
  convenience init(socketPath: String) throws {
    try self.init(
      path: socketPath + ".lock",
      whenHeld: "another motiond is already running for \(socketPath) (it holds \(socketPath).lock)"
    )
  }

  /// Takes the lock on the file at `path` (created 0600), or on the existing directory there,
  /// without waiting; fails with `whenHeld` when another process (or another open of it in this
  /// one) holds it.
  init(path: String, whenHeld: String, isDirectory: Bool = false) throws {
    self.path = path
    let fd =
      isDirectory
      ? open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)
      : open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard fd >= 0 else {
      let code = errno
      throw Failure(
        description: "cannot open the lock file \(path): \(String(cString: strerror(code)))")
    }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
      let code = errno
      _ = close(fd)
      if code == EWOULDBLOCK {
        throw Failure(description: whenHeld)
      }
      throw Failure(description: "cannot lock \(path): \(String(cString: strerror(code)))")
    }
    descriptor = Locked(fd)
  }

  deinit { release() }

  /// Releases the lock (at shutdown, after the socket file is gone; when the store closes).
  func release() {
    descriptor.withLock { fd in
      if fd >= 0 { _ = close(fd) }
      fd = -1
    }
  }
}
