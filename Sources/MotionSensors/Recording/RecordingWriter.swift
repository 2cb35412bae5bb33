// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes samples to a file in OpenCoreMotion's own CSV format (see ``OpenCoreMotionCSV``).
///
/// Numbers are written in Swift's shortest round-trip form (`"\(double)"`), so reading the file
/// back with ``RecordingReader`` gives bit-identical samples. Sensors a sample lacks are left as
/// empty cells, so sources whose sensors tick independently record losslessly too.
///
/// The file appears only when it is complete: the writer fills a hidden temporary file in the same
/// folder (`.<name>.partial-<random>`) and renames it to the destination in ``finish()`` (an atomic
/// rename on one file system). A writer that is dropped, ``cancel()``led or hit by an error removes
/// its temporary file; a crashed process leaves at most a `.partial` file, never a truncated file
/// under the real name. Calls are serialised by a lock, so a writer may be fed from a
/// ``SensorSource`` handler while another thread calls ``finish()``.
/// `@unchecked Sendable`: every `var` is read and written only while `lock` is held.
public final class RecordingWriter: @unchecked Sendable {
  /// Where the finished recording goes.
  public let url: URL
  /// What the recording contains; its sensors decide the columns.
  public let descriptor: StreamDescriptor
  /// Whether ground-truth columns are written.
  public let includesGroundTruth: Bool
  /// The number of samples appended so far.
  public var sampleCount: Int {
    lock.lock()
    defer { lock.unlock() }
    return appendedCount
  }
  private var appendedCount = 0

  private let temporaryPath: String
  private var handle: FileHandle?
  private var buffer: [UInt8] = []
  private var lastTimestamp = -Double.infinity
  private var isFinished = false
  private let sensors: SensorSet
  /// Serialises every public call (the state above is only touched with it held).
  private let lock = NSRecursiveLock()

  /// Creates the temporary file and writes the header.
  ///
  /// - Parameters:
  ///   - url: the destination; replaced by ``finish()`` if it exists.
  ///   - descriptor: the stream's description; its `sensors` choose the sensor columns, its `name`,
  ///     `nominalSampleRate` and `metadata` go into the header.
  ///   - includeGroundTruth: whether to write the `true_…` columns (default `false`).
  /// - Throws: ``RecordingError`` `.writeFailed` when the folder is not writable.
  public init(url: URL, descriptor: StreamDescriptor, includeGroundTruth: Bool = false) throws {
    self.url = url
    self.descriptor = descriptor
    self.includesGroundTruth = includeGroundTruth
    self.sensors = descriptor.sensors
    let folder = url.deletingLastPathComponent()
    // Only a missing path or a regular file is replaced; the temporary file is created 0600.
    if let refusal = FileReplacement.refusal(for: url.path) {
      throw RecordingError(.writeFailed, file: url.path, "cannot write here: \(refusal)")
    }
    switch FileReplacement.createTemporary(near: url.path) {
    case .success(let created):
      temporaryPath = created.path
      handle = FileHandle(fileDescriptor: created.descriptor, closeOnDealloc: true)
    case .failure(let error):
      throw RecordingError(
        .writeFailed, file: url.path, "cannot create a file in \(folder.path) (\(error.reason))")
    }
    buffer.reserveCapacity(1 << 17)
    writeHeader()
  }

  deinit {
    if !isFinished { discard() }
  }

  /// The column names this writer produces, in order.
  public var columnNames: [String] {
    typealias C = OpenCoreMotionCSV.Column
    var names = [C.time]
    if sensors.contains(.accelerometer) { names += C.accelerometer }
    if sensors.contains(.gyroscope) { names += C.gyroscope }
    if sensors.contains(.magnetometer) { names += C.magnetometer }
    if sensors.contains(.barometer) { names.append(C.pressure) }
    if sensors.contains(.thermometer) { names.append(C.temperature) }
    if includesGroundTruth {
      names +=
        C.attitude + C.angularVelocity + C.gyroscopeBias + C.gravity + C.linearAcceleration
        + C.position
      names.append(C.movement)
    }
    return names
  }

  private func writeHeader() {
    typealias F = OpenCoreMotionCSV
    var lines = [
      F.magic,
      "# version: \(F.version)",
      "# source: \(F.escape(descriptor.name))",
      "# sensors: \(sensors.names.joined(separator: ","))",
    ]
    if let rate = descriptor.nominalSampleRate, F.isNominalRate(rate) {
      lines.append("# nominal-sample-rate-hz: \(rate)")
    }
    lines += [
      "# clock: seconds on the source's clock",
      "# earth-frame: NWU (x north, y west, z up)",
      "# units: \(F.unitsLine)",
      "# empty-cell: no value at this instant",
    ]
    for key in descriptor.metadata.keys.sorted() {
      // Keys end at the first colon, so they must not contain one.
      let safeKey = F.escape(key).replacingOccurrences(of: ":", with: "_")
      lines.append("# meta.\(safeKey): \(F.escape(descriptor.metadata[key]!))")
    }
    lines.append(columnNames.joined(separator: ","))
    for line in lines {
      buffer.append(contentsOf: line.utf8)
      buffer.append(0x0A)
    }
  }

  /// Appends one sample.
  ///
  /// - Throws: ``RecordingError`` `.writeFailed` when the writer is finished, the sample has a sensor
  ///   the descriptor does not list, a value is NaN or infinite, the timestamp is earlier than the
  ///   previous sample's, or the disk write fails. The writer stays usable after a rejected sample.
  public func append(_ sample: MotionSample) throws {
    lock.lock()
    defer { lock.unlock() }
    guard !isFinished, handle != nil else {
      throw RecordingError(.writeFailed, file: url.path, "append(_:) after finish() or cancel()")
    }
    let extra = sample.sensors.subtracting(sensors)
    guard extra.isEmpty else {
      throw RecordingError(
        .writeFailed, file: url.path,
        "sample at \(sample.timestamp) s has \(extra) but the recording declares \(sensors)")
    }
    guard sample.isFinite else {
      throw RecordingError(
        .writeFailed, file: url.path, "sample at \(sample.timestamp) s has a NaN or infinite value")
    }
    guard sample.timestamp >= lastTimestamp else {
      throw RecordingError(
        .writeFailed, file: url.path,
        "timestamp \(sample.timestamp) s is earlier than the previous sample's \(lastTimestamp) s")
    }
    lastTimestamp = sample.timestamp
    appendNumber(sample.timestamp)
    if sensors.contains(.accelerometer) { appendVector(sample.accelerometer) }
    if sensors.contains(.gyroscope) { appendVector(sample.gyroscope) }
    if sensors.contains(.magnetometer) { appendVector(sample.magnetometer) }
    if sensors.contains(.barometer) { appendCell(sample.pressure) }
    if sensors.contains(.thermometer) { appendCell(sample.temperature) }
    if includesGroundTruth {
      let truth = sample.groundTruth
      if let q = truth?.earthFromSensor {
        for value in [q.w, q.x, q.y, q.z] { appendCell(value) }
      } else {
        for _ in 0..<4 { appendCell(nil) }
      }
      appendVector(truth?.angularVelocity)
      appendVector(truth?.gyroscopeBias)
      appendVector(truth?.gravity)
      appendVector(truth?.linearAcceleration)
      appendVector(truth?.position)
      buffer.append(UInt8(ascii: ","))
      if let flag = truth?.isMovementPhase {
        buffer.append(flag ? UInt8(ascii: "1") : UInt8(ascii: "0"))
      }
    }
    buffer.append(0x0A)
    appendedCount += 1
    if buffer.count >= 1 << 16 { try flush() }
  }

  /// Appends every remaining sample of a stream (at most `limit`); returns how many. Call
  /// ``finish()`` afterwards (or ``cancel()`` after an error).
  @discardableResult
  public func writeAll(from stream: inout some SampleStream, limit: Int = .max) throws -> Int {
    var count = 0
    while count < limit, let sample = try stream.next() {
      try append(sample)
      count += 1
    }
    return count
  }

  /// Flushes, syncs, closes and renames the temporary file to ``url`` (replacing a regular file
  /// there; a folder or special file is refused), then syncs the folder.
  ///
  /// - Throws: ``RecordingError`` `.writeFailed` when writing or renaming fails; the temporary file
  ///   is then removed and nothing appears at ``url``.
  public func finish() throws {
    lock.lock()
    defer { lock.unlock() }
    guard !isFinished else { return }
    do {
      try flush()
      try handle?.synchronize()
      try handle?.close()
      handle = nil
      // rename(2) replaces an existing regular file atomically; the folder is synced afterwards.
      if case .failure(let error) = FileReplacement.commit(temporary: temporaryPath, to: url.path) {
        throw RecordingError(
          .writeFailed, file: url.path,
          "cannot rename the finished recording into place (\(error.reason))")
      }
      isFinished = true
    } catch let error as RecordingError {
      discard()
      throw error
    } catch {
      discard()
      throw RecordingError(
        .writeFailed, file: url.path,
        "cannot complete the recording (\(error.localizedDescription))")
    }
  }

  /// Abandons the recording: closes and removes the temporary file; nothing appears at ``url``.
  public func cancel() {
    lock.lock()
    defer { lock.unlock() }
    discard()
  }

  private func discard() {
    try? handle?.close()
    handle = nil
    isFinished = true
    unlink(temporaryPath)
  }

  private func flush() throws {
    guard !buffer.isEmpty, let handle else { return }
    do {
      try handle.write(contentsOf: buffer)
    } catch {
      throw RecordingError(
        .writeFailed, file: url.path, "write failed (\(error.localizedDescription))")
    }
    buffer.removeAll(keepingCapacity: true)
  }

  // MARK: - Cells

  @inline(__always)
  private func appendNumber(_ value: Double) {
    // `description` is the shortest text that reads back as the same Double.
    buffer.append(contentsOf: value.description.utf8)
  }

  @inline(__always)
  private func appendCell(_ value: Double?) {
    buffer.append(UInt8(ascii: ","))
    if let value { appendNumber(value) }
  }

  @inline(__always)
  private func appendVector(_ value: SIMD3<Double>?) {
    appendCell(value?.x)
    appendCell(value?.y)
    appendCell(value?.z)
  }
}
