// SPDX-License-Identifier: Apache-2.0

import Foundation
import LinuxIIO

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A fake IIO sysfs tree and `/dev` directory in a temporary directory, with FIFOs standing in for
/// `/dev/iio:deviceN`. Used by the tests and by ``IIOBenchmark``; removed on deinit.
package final class IIOFakeTree {
  /// The temporary directory holding everything.
  package let base: String
  /// The fake `/sys/bus/iio/devices`.
  package let sysfsRoot: String
  /// The fake `/dev`.
  package let devRoot: String

  /// A scan element of a fake device: `name` without suffix, scan index, format.
  package struct ScanElement {
    package var name: String
    package var index: Int
    package var type: String
    package var enabled = false

    package init(name: String, index: Int, type: String, enabled: Bool = false) {
      self.name = name
      self.index = index
      self.type = type
      self.enabled = enabled
    }
  }

  package init() throws {
    var template = Array((NSTemporaryDirectory() + "/iio-fake-XXXXXX").utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
      throw IIOError.unreadable(path: NSTemporaryDirectory(), reason: "mkdtemp failed")
    }
    base = String(cString: made)
    sysfsRoot = base + "/sys/bus/iio/devices"
    devRoot = base + "/dev"
    try FileManager.default.createDirectory(atPath: sysfsRoot, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: devRoot, withIntermediateDirectories: true)
  }

  deinit {
    try? FileManager.default.removeItem(atPath: base)
  }

  /// The sysfs directory of device `index`.
  package func devicePath(_ index: Int) -> String { "\(sysfsRoot)/iio:device\(index)" }

  /// The character-device path of device `index`.
  package func nodePath(_ index: Int) -> String { "\(devRoot)/iio:device\(index)" }

  /// Creates `iio:device<index>` with `attributes` (relative path → content; a newline is added),
  /// and, when `scanElements` is non-empty, a legacy `buffer/` + `scan_elements/` pair, a
  /// `current_timestamp_clock` and a FIFO node.
  @discardableResult
  package func addDevice(
    index: Int, name: String, attributes: [String: String] = [:],
    scanElements: [ScanElement] = [], timestampClock: String = "realtime",
    currentTrigger: String? = nil
  ) throws -> String {
    // Built aside and renamed into place, so a reader scanning the root never sees a
    // half-written device (the kernel adds a device's attributes before announcing it).
    let path = devicePath(index)
    let staging = "\(base)/staging-\(index)"
    func put(_ relative: String, _ value: String) throws {
      try Self.writeFile("\(staging)/\(relative)", value)
    }
    try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
    try put("name", name)
    for (relative, value) in attributes { try put(relative, value) }
    if !scanElements.isEmpty {
      try put("current_timestamp_clock", timestampClock)
      try put("buffer/enable", "0")
      try put("buffer/length", "2")
      try put("buffer/watermark", "1")
      for element in scanElements {
        try put("scan_elements/\(element.name)_en", element.enabled ? "1" : "0")
        try put("scan_elements/\(element.name)_index", String(element.index))
        try put("scan_elements/\(element.name)_type", element.type)
      }
      if let currentTrigger { try put("trigger/current_trigger", currentTrigger) }
      try makeFIFO(index)
    }
    guard rename(staging, path) == 0 else {
      throw IIOError.unreadable(path: path, reason: "rename failed (errno \(errno))")
    }
    return path
  }

  private static func writeFile(_ path: String, _ value: String) throws {
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    // Plain POSIX calls: Foundation's writer syncs every file, which is slow on a busy disk.
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
      throw IIOError.unreadable(path: path, reason: "open failed (errno \(errno))")
    }
    defer { _ = closeDescriptor(fd) }
    let bytes = Array((value + "\n").utf8)
    guard bytes.withUnsafeBytes({ posixWrite(fd, $0.baseAddress!, $0.count) }) == bytes.count else {
      throw IIOError.unreadable(path: path, reason: "write failed (errno \(errno))")
    }
  }

  /// Creates `trigger<index>` named `name`.
  package func addTrigger(index: Int, name: String) throws {
    let path = "\(sysfsRoot)/trigger\(index)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    try Self.writeFile(path + "/name", name)
  }

  /// Writes an attribute of device `index` (creating directories), newline-terminated.
  package func write(_ index: Int, _ relative: String, _ value: String) throws {
    try Self.writeFile("\(devicePath(index))/\(relative)", value)
  }

  /// Reads an attribute of device `index`, trimmed.
  package func read(_ index: Int, _ relative: String) -> String? {
    (try? String(contentsOfFile: "\(devicePath(index))/\(relative)", encoding: .utf8))?
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// Creates the FIFO standing in for `/dev/iio:device<index>`.
  package func makeFIFO(_ index: Int) throws {
    let path = nodePath(index)
    unlink(path)
    guard mkfifo(path, 0o600) == 0 else {
      throw IIOError.unreadable(path: path, reason: "mkfifo failed (errno \(errno))")
    }
  }

  /// Removes device `index` (sysfs directory and node), as when a driver unbinds.
  package func removeDevice(_ index: Int) {
    try? FileManager.default.removeItem(atPath: devicePath(index))
    unlink(nodePath(index))
  }
}

/// The writing end of a fake device FIFO.
package final class IIOFIFOWriter {
  private var fd: Int32 = -1

  /// Opens `path` for writing once a reader has it open; throws after `timeout` seconds.
  package init(path: String, timeout: Double = 2) throws {
    // A write after the reader left must fail with EPIPE, not kill the process.
    signal(SIGPIPE, SIG_IGN)
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
      if fd >= 0 { break }
      guard errno == ENXIO, Date() < deadline else {
        throw IIOError.unreadable(path: path, reason: "no reader opened the FIFO (errno \(errno))")
      }
      usleep(500)  // Waiting for the source's reader thread to open its end.
    }
    // Blocking writes from here on: a full FIFO waits for the reader instead of failing.
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
  }

  /// Writes all of `bytes`.
  package func write(_ bytes: [UInt8]) {
    var done = 0
    while done < bytes.count {
      let count = bytes.withUnsafeBytes { raw in
        posixWrite(fd, raw.baseAddress! + done, raw.count - done)
      }
      if count < 0 {
        if errno == EINTR { continue }
        return
      }
      done += count
    }
  }

  /// Closes the writing end (the reader sees end of file).
  package func close() {
    if fd >= 0 { _ = closeDescriptor(fd) }
    fd = -1
  }

  deinit { close() }
}

@inline(__always)
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
  write(fd, buffer, count)
}

@inline(__always)
private func closeDescriptor(_ fd: Int32) -> Int32 {
  close(fd)
}
