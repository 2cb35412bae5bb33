// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Opens the files of a recording for reading, and only when they are regular files.
///
/// A recording path may name anything: opening a FIFO without a writer blocks forever, a device
/// may never end, and a pipe cannot be read twice (format detection reads the start of the file,
/// then the reader reads it again). So the path is `stat`ed first and anything but a regular file
/// is refused with a ``RecordingError`` that says what it is. The file is then opened with
/// `O_NONBLOCK` and checked again on the descriptor, so a path swapped for a FIFO between the two
/// steps is refused too instead of blocking the `open`.
///
/// `package`: LinuxIIO reads its configuration file (`COREMOTION_IIO_CONFIG`) and the daemon
/// its dashboard's URL file through ``readPrefix(_:displayName:count:purpose:)``, and LinuxIIO
/// opens its sysfs attributes with ``openRegular(_:flags:)``.
package enum RegularFile {
  /// Opens `path` for reading and returns the descriptor (the caller closes it) and the size.
  ///
  /// - Parameter purpose: what such files hold, for the message refusing one that is not regular
  ///   (`"recordings"`, `"scenarios"`).
  /// - Throws: ``RecordingError`` `.fileNotFound` when nothing is there, `.unreadable` for a file
  ///   that is not regular or cannot be opened.
  static func openForReading(
    _ path: String, displayName: String? = nil, purpose: String = "recordings"
  ) throws -> (descriptor: Int32, size: Int) {
    let name = displayName ?? path
    switch openRegular(path, flags: O_RDONLY) {
    case .success(let opened):
      // Reads of a regular file never wait, so O_NONBLOCK changes nothing from here on; it is
      // cleared all the same so the descriptor behaves like any other.
      let flags = fcntl(opened.descriptor, F_GETFL)
      if flags >= 0 { _ = fcntl(opened.descriptor, F_SETFL, flags & ~O_NONBLOCK) }
      return opened
    case .failure(.system(let code)):
      throw openError(code, name: name)
    case .failure(.notRegular(let mode)):
      throw notRegularError(mode, name: name, purpose: purpose)
    }
  }

  /// Why ``openRegular(_:flags:)`` gave no descriptor.
  package enum OpenFailure: Error, Equatable {
    /// `stat`, `open` or `fstat` failed with this `errno`.
    case system(Int32)
    /// The path is not a regular file but this mode's kind (``kindName(_:)``).
    case notRegular(mode_t)
  }

  /// Opens `path` with `flags` (and `O_NONBLOCK`, `O_NOCTTY`, `O_CLOEXEC`) only when it is a
  /// regular file, checked on the path before and on the descriptor after (the caller closes it);
  /// returns the descriptor and the size. The one check behind the recording readers and the IIO
  /// backend's sysfs attributes. `O_NONBLOCK` stays set: on a regular file it changes nothing.
  package static func openRegular(
    _ path: String, flags: Int32
  ) -> Result<(descriptor: Int32, size: Int), OpenFailure> {
    var status = stat()
    guard stat(path, &status) == 0 else { return .failure(.system(errno)) }
    guard kindName(status.st_mode) == nil else { return .failure(.notRegular(status.st_mode)) }
    let descriptor = open(path, flags | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
    guard descriptor >= 0 else { return .failure(.system(errno)) }
    guard fstat(descriptor, &status) == 0 else {
      let code = errno
      close(descriptor)
      return .failure(.system(code))
    }
    guard kindName(status.st_mode) == nil else {
      close(descriptor)
      return .failure(.notRegular(status.st_mode))
    }
    return .success((descriptor, Int(clamping: status.st_size)))
  }

  /// The size of the regular file at `path` (after following symbolic links); `nil` when nothing
  /// is there.
  ///
  /// - Throws: ``RecordingError`` `.unreadable` when it is not a regular file or cannot be
  ///   examined.
  static func size(_ path: String, displayName: String? = nil) throws -> Int? {
    var status = stat()
    guard stat(path, &status) == 0 else {
      if errno == ENOENT { return nil }
      throw openError(errno, name: displayName ?? path)
    }
    try refuseUnlessRegular(status.st_mode, name: displayName ?? path)
    return Int(clamping: status.st_size)
  }

  /// Reads at most `count` bytes from the start of the regular file at `path`.
  ///
  /// - Throws: what ``openForReading(_:displayName:purpose:)`` throws, and `.unreadable` for a read
  ///   error.
  package static func readPrefix(
    _ path: String, displayName: String? = nil, count: Int, purpose: String = "recordings"
  ) throws -> Data {
    let name = displayName ?? path
    let (descriptor, size) = try openForReading(path, displayName: name, purpose: purpose)
    defer { close(descriptor) }
    // The size is only a hint for the buffer (the file may grow or shrink while it is read); one
    // byte more than the size sees the end without a second read. A size of Int.max (a sparse file
    // on a file system that allows it) must not overflow that addition.
    var data = Data(count: Swift.max(0, size < count ? size + 1 : count))
    var filled = 0
    while filled < data.count {
      let n = data.withUnsafeMutableBytes { raw in
        pread(descriptor, raw.baseAddress! + filled, raw.count - filled, off_t(filled))
      }
      if n < 0 {
        if errno == EINTR { continue }
        throw RecordingError(
          .unreadable, file: name, "cannot read the file (\(String(cString: strerror(errno))))")
      }
      if n == 0 { break }
      filled += n
    }
    data.removeSubrange(filled...)
    return data
  }

  /// What a file of this mode is, for messages; `nil` for a regular file.
  package static func kindName(_ mode: mode_t) -> String? {
    switch mode & S_IFMT {
    case S_IFREG: return nil
    case S_IFDIR: return "a folder"
    case S_IFIFO: return "a pipe (FIFO)"
    case S_IFCHR: return "a character device"
    case S_IFBLK: return "a block device"
    case S_IFSOCK: return "a socket"
    default: return "not a regular file"
    }
  }

  private static func refuseUnlessRegular(
    _ mode: mode_t, name: String, purpose: String = "recordings"
  ) throws {
    guard kindName(mode) != nil else { return }
    throw notRegularError(mode, name: name, purpose: purpose)
  }

  /// The error refusing a file of `mode`, which is not a regular one.
  private static func notRegularError(
    _ mode: mode_t, name: String, purpose: String
  ) -> RecordingError {
    if mode & S_IFMT == S_IFDIR {
      return RecordingError(.unreadable, file: name, "cannot read the file (it is a folder)")
    }
    return RecordingError(
      .unreadable, file: name,
      "is \(kindName(mode) ?? "not a regular file"), not a regular file: \(purpose) are read "
        + "from regular files only (save the data to a file first)")
  }

  private static func openError(_ code: Int32, name: String) -> RecordingError {
    if code == ENOENT { return RecordingError(.fileNotFound, file: name, "no such file") }
    return RecordingError(
      .unreadable, file: name, "cannot read the file (\(String(cString: strerror(code))))")
  }
}
