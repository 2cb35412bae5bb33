// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Why an operating-system call on an IIO file failed, sorted into the cases the backend reacts to.
enum IIOSystemError: Error, Equatable, Sendable {
  /// `EBUSY`: another process holds the device or its buffer is enabled.
  case busy
  /// `EACCES` / `EPERM`.
  case permissionDenied
  /// `ENOENT` / `ENODEV` / `ENXIO`: the file or the device behind it is gone.
  case gone
  /// `EAGAIN`: no data yet on a non-blocking descriptor.
  case wouldBlock
  /// `EINVAL` and anything else, with the errno value.
  case other(Int32)
  /// Not a regular file, which every sysfs attribute is: a FIFO, a device, a folder (what it is,
  /// as `RegularFile.kindName(_:)` says it: "a pipe (FIFO)").
  case notRegularFile(String)
  /// An attribute longer than ``IIOSystem/maximumAttributeSize``.
  case tooLarge
  /// A buffer node that is neither a character device (the kernel's) nor a FIFO (a test's stand-in):
  /// a regular file, a folder (what it is, as for ``notRegularFile(_:)``).
  case notADeviceNode(String)

  /// Whether the file itself is wrong for an attribute (not a regular file, too large), which
  /// trying again does not change, unlike an errno from the device.
  var isLasting: Bool {
    switch self {
    case .notRegularFile, .tooLarge, .notADeviceNode: return true
    default: return false
    }
  }

  /// A short phrase for messages.
  var phrase: String {
    switch self {
    case .busy: return "device or resource busy (EBUSY)"
    case .permissionDenied: return "permission denied"
    case .gone: return "no such device"
    case .wouldBlock: return "no data available"
    case .other(let code): return "error \(code) (\(String(cString: strerror(code))))"
    case .notRegularFile(let kind):
      return "it is \(kind), not a regular file as sysfs attributes are"
    case .tooLarge:
      return "it holds more than \(IIOSystem.maximumAttributeSize >> 10) KiB, which no sysfs "
        + "attribute does"
    case .notADeviceNode(let kind):
      return "it is \(kind), not the character device of an IIO buffer"
    }
  }
}

/// The operating-system calls the backend makes, in one place so that tests can inject the failures
/// a fake sysfs tree cannot produce (EBUSY, EACCES while running as root).
///
/// Everything here is plain POSIX; Linux-only facilities (clock ids) are behind `#if os(Linux)`.
/// Subclasses (in tests) override single methods.
/// `@unchecked Sendable`: it has no stored state (plain POSIX calls); not `final`, so the compiler
/// cannot check that, and test subclasses must keep their own state behind a lock.
class IIOSystem: @unchecked Sendable {
  init() {}

  /// The most bytes read from one attribute. sysfs gives an attribute one page (4 KiB); the cap
  /// keeps a fake tree's file (`COREMOTION_IIO_ROOT` may name any folder) from being read whole,
  /// whatever its size.
  static let maximumAttributeSize = 64 * 1024

  /// Reads a whole sysfs attribute as text: a regular file of at most ``maximumAttributeSize``
  /// bytes.
  func readAttribute(_ path: String) -> Result<String, IIOSystemError> {
    let fd: Int32
    switch openAttribute(path, O_RDONLY) {
    case .success(let descriptor): fd = descriptor
    case .failure(let error): return .failure(error)
    }
    defer { close(fd) }
    var data = [UInt8]()
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        return .failure(Self.classify(errno))
      }
      if count == 0 { break }
      guard data.count + count <= Self.maximumAttributeSize else { return .failure(.tooLarge) }
      data.append(contentsOf: chunk[0..<count])
    }
    return .success(String(decoding: data, as: UTF8.self))
  }

  /// Writes `value` (plus a newline, as `echo` would) to a sysfs attribute, replacing its content.
  func writeAttribute(_ path: String, _ value: String) -> Result<Void, IIOSystemError> {
    // O_TRUNC matters only for the fake trees of tests (regular files); sysfs ignores it.
    let fd: Int32
    switch openAttribute(path, O_WRONLY | O_TRUNC) {
    case .success(let descriptor): fd = descriptor
    case .failure(let error): return .failure(error)
    }
    defer { close(fd) }
    let bytes = Array((value + "\n").utf8)
    while true {
      let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      if written >= 0 { return .success(()) }
      // A signal during the write (the reads retry too): nothing was written, so write again
      // rather than report a failure that would stop the device or leave a setting unrestored.
      if errno == EINTR { continue }
      return .failure(Self.classify(errno))
    }
  }

  /// Opens the attribute at `path` with `flags`, only when it is a regular file (as every sysfs
  /// attribute is), through MotionSensors' `RegularFile.openRegular(_:flags:)`, the check the
  /// recording readers use.
  ///
  /// Anything else is refused before it is opened: opening a FIFO waits for its other end (a tree
  /// with one hung discovery for ever), a device never ends (`/dev/zero` filled memory) and
  /// opening one may claim it. The descriptor is opened with `O_NONBLOCK` and checked again, so a
  /// path swapped for a FIFO in between is refused too instead of blocking. Attribute reads and
  /// writes never wait on a regular file, so `O_NONBLOCK` changes nothing for them.
  private func openAttribute(_ path: String, _ flags: Int32) -> Result<Int32, IIOSystemError> {
    switch RegularFile.openRegular(path, flags: flags) {
    case .success(let opened): return .success(opened.descriptor)
    case .failure(.system(let code)): return .failure(Self.classify(code))
    case .failure(.notRegular(let mode)):
      return .failure(.notRegularFile(RegularFile.kindName(mode) ?? "not a regular file"))
    }
  }

  /// Whether a file or directory exists at `path`.
  func exists(_ path: String) -> Bool {
    access(path, F_OK) == 0
  }

  /// The entry names of a directory, sorted; nil when it cannot be listed.
  func listDirectory(_ path: String) -> Result<[String], IIOSystemError> {
    guard let dir = opendir(path) else { return .failure(Self.classify(errno)) }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw -> String in
        let bytes = raw.bindMemory(to: UInt8.self)
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        return String(decoding: bytes[0..<end], as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return .success(names.sorted())
  }

  /// Opens a buffer character device for non-blocking reading: a character device, or a FIFO (the
  /// stand-in of the tests' fake trees).
  ///
  /// Anything else is refused: a regular file (`COREMOTION_IIO_DEV` may name any folder) was read
  /// to its end, opened again and read again for ever, its records delivered as new samples and a
  /// core kept busy; a folder failed every read and was retried every second.
  func openDevice(_ path: String) -> Result<Int32, IIOSystemError> {
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else { return .failure(Self.classify(errno)) }
    var status = stat()
    guard fstat(fd, &status) == 0 else {
      let code = errno
      close(fd)
      return .failure(Self.classify(code))
    }
    let type = status.st_mode & S_IFMT
    guard type == S_IFCHR || type == S_IFIFO else {
      close(fd)
      return .failure(.notADeviceNode(RegularFile.kindName(status.st_mode) ?? "a regular file"))
    }
    return .success(fd)
  }

  /// Whether `fd` is a FIFO: the only buffer node that may reach its end (when the test writing
  /// to it closes its end); the kernel's character device never does.
  func isFIFO(_ fd: Int32) -> Bool {
    var status = stat()
    return fstat(fd, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO
  }

  /// Reads up to `count` bytes into `buffer`; `.success(0)` is end of file.
  func readDevice(
    _ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int
  ) -> Result<
    Int, IIOSystemError
  > {
    while true {
      let result = read(fd, buffer, count)
      if result >= 0 { return .success(result) }
      if errno == EINTR { continue }
      return .failure(Self.classify(errno))
    }
  }

  /// Waits up to `timeoutMilliseconds` (−1: forever) for input on `fds`; returns each descriptor's
  /// `revents`, all zero on a timeout.
  func waitForInput(_ fds: [Int32], timeoutMilliseconds: Int32) -> [Int16] {
    var entries = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    while true {
      let result = entries.withUnsafeMutableBufferPointer {
        poll($0.baseAddress, nfds_t($0.count), timeoutMilliseconds)
      }
      if result >= 0 { return entries.map(\.revents) }
      if errno != EINTR { return entries.map { _ in 0 } }
    }
  }

  /// Creates a non-blocking pipe used to wake the reader thread; nil when the system refuses.
  func makeWakePipe() -> (read: Int32, write: Int32)? {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { return nil }
    for fd in ends { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    return (ends[0], ends[1])
  }

  /// Wakes a ``waitForInput(_:timeoutMilliseconds:)`` that includes the pipe's read end.
  func wake(_ writeEnd: Int32) {
    var byte: UInt8 = 1
    _ = write(writeEnd, &byte, 1)
  }

  /// Empties the wake pipe.
  func drain(_ readEnd: Int32) {
    var scratch = [UInt8](repeating: 0, count: 64)
    while scratch.withUnsafeMutableBytes({ read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
  }

  /// Closes a descriptor from ``openDevice(_:)``.
  func closeDevice(_ fd: Int32) {
    close(fd)
  }

  /// Seconds since boot (the timestamps of polled samples).
  func bootTime() -> Double {
    BootClock.now
  }

  /// The current reading in seconds of the kernel clock called `name` in `current_timestamp_clock`
  /// (`realtime`, `monotonic`, `monotonic_raw`, `realtime_coarse`, `monotonic_coarse`, `boottime`,
  /// `tai`), or nil when it is unknown here.
  func clockTime(named name: String) -> Double? {
    #if os(Linux)
      let id: clockid_t
      switch name {
      case "realtime": id = CLOCK_REALTIME
      case "monotonic": id = CLOCK_MONOTONIC
      case "monotonic_raw": id = CLOCK_MONOTONIC_RAW
      case "realtime_coarse": id = CLOCK_REALTIME_COARSE
      case "monotonic_coarse": id = CLOCK_MONOTONIC_COARSE
      case "boottime": id = CLOCK_BOOTTIME
      case "tai": id = CLOCK_TAI
      default: return nil
      }
      var ts = timespec()
      guard clock_gettime(id, &ts) == 0 else { return nil }
      return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    #else
      return name == "boottime" ? bootTime() : nil
    #endif
  }

  /// Sorts an errno value into the cases the backend distinguishes.
  static func classify(_ code: Int32) -> IIOSystemError {
    switch code {
    case EBUSY: return .busy
    case EACCES, EPERM: return .permissionDenied
    case ENOENT, ENODEV, ENXIO: return .gone
    case EAGAIN: return .wouldBlock
    default: return .other(code)
    }
  }
}
