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
/// names what its sysfs attributes are with ``kindName(_:)``.
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
    var status = stat()
    guard stat(path, &status) == 0 else { throw openError(errno, name: name) }
    try refuseUnlessRegular(status.st_mode, name: name, purpose: purpose)
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
    guard descriptor >= 0 else { throw openError(errno, name: name) }
    guard fstat(descriptor, &status) == 0 else {
      let code = errno
      close(descriptor)
      throw openError(code, name: name)
    }
    do {
      try refuseUnlessRegular(status.st_mode, name: name, purpose: purpose)
    } catch {
      close(descriptor)
      throw error
    }
    // Reads of a regular file never wait, so O_NONBLOCK changes nothing from here on; it is cleared
    // all the same so the descriptor behaves like any other.
    let flags = fcntl(descriptor, F_GETFL)
    if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
    return (descriptor, Int(clamping: status.st_size))
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
    guard let kind = kindName(mode) else { return }
    if mode & S_IFMT == S_IFDIR {
      throw RecordingError(.unreadable, file: name, "cannot read the file (it is a folder)")
    }
    throw RecordingError(
      .unreadable, file: name,
      "is \(kind), not a regular file: \(purpose) are read from regular files only (save the "
        + "data to a file first)")
  }

  private static func openError(_ code: Int32, name: String) -> RecordingError {
    if code == ENOENT { return RecordingError(.fileNotFound, file: name, "no such file") }
    return RecordingError(
      .unreadable, file: name, "cannot read the file (\(String(cString: strerror(code))))")
  }
}
