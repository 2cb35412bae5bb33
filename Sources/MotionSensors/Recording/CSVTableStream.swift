// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Decodes the data rows of a CSV table into samples according to a ``ColumnLayout``.
///
/// Shared by every one-row-per-instant format. Validation happens here, so every format reports
/// problems the same way: the file, the 1-based line and the column, and what is wrong.
struct CSVTableStream: RecordingRowStream {
  private(set) var descriptor: StreamDescriptor
  private var cursor: CSVCursor
  private let layout: ColumnLayout
  private let headerColumnCount: Int
  private let invalidRows: RecordingReader.InvalidRowPolicy
  private let decimalComma: Bool
  private let skipsCommentLines: Bool
  private var fields: [CSVField] = []
  private var lastTimestamp = -Double.infinity
  /// A row whose time jumped more than ``suspiciousForwardJump`` ahead, held until the next usable
  /// row tells whether it is a new stretch of the recording or a glitch (with its line).
  private var heldRow: (sample: MotionSample, line: Int)?
  /// A row already decoded and ordered, returned by the next call (after a held row was released).
  private var readyRow: MotionSample?
  private var isFinished = false
  /// Rows left out under ``RecordingReader/InvalidRowPolicy/skip``.
  private(set) var skippedRowCount = 0

  /// Creates a decoder positioned at the first data row.
  ///
  /// - Parameters:
  ///   - headerColumnCount: the number of cells every row must have (one extra empty cell, from a
  ///     trailing separator, is tolerated).
  ///   - skipsCommentLines: whether data lines starting with `#` are ignored.
  init(
    cursor: CSVCursor, layout: ColumnLayout, headerColumnCount: Int, descriptor: StreamDescriptor,
    options: RecordingReader.Options, decimalComma: Bool = false, skipsCommentLines: Bool = false,
    countsRowsOfTheWrongLength: Bool = true, countsTimeRejections: Bool = true
  ) {
    self.countsRowsOfTheWrongLength = countsRowsOfTheWrongLength
    self.countsTimeRejections = countsTimeRejections
    self.cursor = cursor
    self.layout = layout
    self.headerColumnCount = headerColumnCount
    self.descriptor = descriptor
    self.invalidRows = options.invalidRows
    self.decimalComma = decimalComma
    self.skipsCommentLines = skipsCommentLines
  }

  /// The largest step ahead in time, in seconds, that a row takes without a second look (one
  /// minute). A row further ahead of the previous one is held until the next usable row: when that
  /// row continues at or after it, the recording resumed after a gap and both are kept; when that
  /// row goes back before it (continuing the old timeline), the far row is a glitched timestamp
  /// and is left out and counted under ``RecordingReader/InvalidRowPolicy/skip``, or reported
  /// naming its line under ``RecordingReader/InvalidRowPolicy/fail``. A far row that is the last
  /// of the file is kept.
  ///
  /// Without this, one row stamped 99 999 999 among rows 0, 0.01, … kept the glitch and dropped
  /// every later row as going backwards.
  static let suspiciousForwardJump = 60.0

  /// Whether a skipped row of the wrong length is counted in ``skippedRowCount``. Tables that read
  /// the same rows for different sensors (SensorLog's groups, device-motion CSVs) all skip such a
  /// row; one of them counts it, so the row is counted once.
  private let countsRowsOfTheWrongLength: Bool

  /// Whether a row skipped for its timestamp (not finite, glitched, going backwards) is counted in
  /// ``skippedRowCount``. Tables that read one time column for different sensors (a device-motion
  /// CSV's, SensorLog's `motionTimestamp_sinceReboot` read as accelerometer, gyroscope and ground
  /// truth) all skip such a row; the first table of each time column counts it, so it is counted
  /// once (three or four times before).
  private let countsTimeRejections: Bool

  mutating func next() throws -> MotionSample? {
    if let ready = readyRow {
      readyRow = nil
      return ready
    }
    guard !isFinished else { return nil }
    do {
      while try cursor.nextRow(into: &fields) {
        if skipsCommentLines, let first = fields.first, first.end > first.start,
          cursor.bytes.base[first.start] == UInt8(ascii: "#")
        {
          continue
        }
        if let sample = try decodeRow() { return sample }
      }
    } catch {
      isFinished = true
      throw error
    }
    isFinished = true
    // A far row at the end of the file: nothing contradicts it.
    if let held = heldRow {
      heldRow = nil
      lastTimestamp = held.sample.timestamp
      return held.sample
    }
    return nil
  }

  // MARK: - Row decoding

  private var fileName: String { cursor.bytes.fileName }

  private func malformed(_ message: String, column: Int? = nil) -> RecordingError {
    RecordingError(
      .malformedRow, file: fileName, line: cursor.lineNumber,
      column: column.map {
        layout.columnNames.indices.contains($0) ? layout.columnNames[$0] : "#\($0 + 1)"
      },
      message)
  }

  /// Handles a row that parses but must not be used: throws, or counts it and returns `nil`.
  /// `forItsTime`: rejected for its timestamp, which every table of the same time column rejects
  /// too (see ``countsTimeRejections``).
  private mutating func reject(
    _ error: RecordingError, forItsTime: Bool = false
  ) throws -> MotionSample? {
    switch invalidRows {
    case .fail:
      var error = error
      error.wouldBeSkipped = true
      throw error
    case .skip:
      if !forItsTime || countsTimeRejections { skippedRowCount += 1 }
      return nil
    }
  }

  private func number(_ column: Int) throws -> Double? {
    do {
      return try cursor.bytes.double(fields[column], decimalComma: decimalComma)
    } catch {
      let text = cursor.bytes.string(fields[column])
      // Quoted with control characters escaped: a NUL after "0" must not read as a valid "0".
      throw malformed(
        "expected a number, found \(RecordingError.quoted(text.prefix(40)))", column: column)
    }
  }

  /// Reads three cells: all empty is "no value", all numbers is a vector, anything else an error.
  private func vector(_ v: ColumnLayout.Vector) throws -> SIMD3<Double>? {
    let x = try number(v.columns.x)
    let y = try number(v.columns.y)
    let z = try number(v.columns.z)
    guard let x, let y, let z else {
      if x == nil && y == nil && z == nil { return nil }
      let missing = [(x, v.columns.x), (y, v.columns.y), (z, v.columns.z)].first { $0.0 == nil }!.1
      throw malformed("a vector needs all three axes; this cell is empty", column: missing)
    }
    return SIMD3(x, y, z) * v.scale
  }

  private func scalar(_ s: ColumnLayout.Scalar) throws -> Double? {
    guard var value = try number(s.column) else { return nil }
    value *= s.scale
    if s.offset != 0 { value += s.offset }
    return value
  }

  private func timestamp() throws -> Double {
    let column = layout.time
    switch layout.timeEncoding {
    case .decimal(let scale):
      guard let value = try number(column) else {
        throw malformed("the timestamp is empty", column: column)
      }
      return value * scale
    case .integer(let unitsPerSecond):
      let integer: Int64?
      do {
        integer = try cursor.bytes.integer(fields[column])
      } catch {
        // Decimal or exponent text (a spreadsheet rewrote the column): parse it, losing exactness.
        guard let value = try number(column) else {
          throw malformed("the timestamp is empty", column: column)
        }
        return value / Double(unitsPerSecond)
      }
      guard let integer else { throw malformed("the timestamp is empty", column: column) }
      return Double(integer / unitsPerSecond) + Double(integer % unitsPerSecond)
        / Double(unitsPerSecond)
    }
  }

  /// Whether the time cell is empty or NaN.
  private func timeIsMissing() -> Bool {
    let cell = cursor.bytes.trimmed(fields[layout.time])
    if cell.isEmpty { return true }
    guard let value = try? cursor.bytes.double(cell) else { return false }
    return value.isNaN
  }

  private mutating func decodeRow() throws -> MotionSample? {
    let count = fields.count
    if count != headerColumnCount {
      let trailingEmpty = count == headerColumnCount + 1 && fields[count - 1].isEmpty
      // Skippable: a row cut short or run together (a logger killed mid-write, SensorLog's rows
      // that leave out a cell) is one bad row; the cells cannot be told apart, so it is never read.
      if !trailingEmpty {
        let error = malformed("expected \(headerColumnCount) cells, found \(count)")
        if case .skip = invalidRows, !countsRowsOfTheWrongLength { return nil }
        return try reject(error)
      }
    }
    if layout.missingTimeSkipsRow && timeIsMissing() { return nil }
    let time = try timestamp()
    guard time.isFinite else {
      return try reject(
        malformed("the timestamp is not finite", column: layout.time).kind(.invalidValue),
        forItsTime: true)
    }

    var sample = MotionSample(timestamp: time)
    if let v = layout.accelerometer { sample.accelerometer = try vector(v) }
    if let v = layout.gyroscope { sample.gyroscope = try vector(v) }
    if let v = layout.magnetometer { sample.magnetometer = try vector(v) }
    if let s = layout.pressure { sample.pressure = try scalar(s) }
    if let s = layout.temperature { sample.temperature = try scalar(s) }
    if !sample.isFinite {
      return try reject(
        malformed("a sensor value is NaN or infinite", column: firstNonFiniteColumn(sample))
          .kind(.invalidValue))
    }
    if let held = heldRow {
      heldRow = nil
      if time >= held.sample.timestamp {
        // The far row starts a new stretch: release it, and place this row after it.
        lastTimestamp = held.sample.timestamp
        readyRow = try place(&sample)
        return held.sample
      }
      // This row continues the old timeline: the far row was a glitch.
      _ = try reject(
        RecordingError(
          .invalidValue, file: fileName, line: held.line, column: layout.columnNames[layout.time],
          "the timestamp \(held.sample.timestamp) jumps \(held.sample.timestamp - lastTimestamp) s "
            + "ahead of the previous row's \(lastTimestamp), and the next row (line "
            + "\(cursor.lineNumber)) goes back to \(time): a glitched timestamp"),
        forItsTime: true)
    }
    return try place(&sample)
  }

  /// Places the current row in time (see ``suspiciousForwardJump``): returns it complete with its
  /// ground truth, holds it (a far step ahead), or rejects it (going backwards).
  private mutating func place(_ sample: inout MotionSample) throws -> MotionSample? {
    let time = sample.timestamp
    if time < lastTimestamp {
      return try reject(
        RecordingError(
          .timestampWentBackwards, file: fileName, line: cursor.lineNumber,
          column: layout.columnNames[layout.time],
          "the timestamp \(time) is earlier than the previous row's \(lastTimestamp)"),
        forItsTime: true)
    }
    if layout.hasGroundTruth { sample.groundTruth = try groundTruth() }
    if lastTimestamp.isFinite, time - lastTimestamp > Self.suspiciousForwardJump {
      heldRow = (sample, cursor.lineNumber)
      return nil
    }
    lastTimestamp = time
    return sample
  }

  private func firstNonFiniteColumn(_ sample: MotionSample) -> Int? {
    let checks: [(SIMD3<Double>?, ColumnLayout.Vector?)] = [
      (sample.accelerometer, layout.accelerometer), (sample.gyroscope, layout.gyroscope),
      (sample.magnetometer, layout.magnetometer),
    ]
    for (value, v) in checks {
      if let value, let v, !value.isFinite {
        for axis in 0..<3 where !value[axis].isFinite { return v.columns[axis] }
      }
    }
    if let p = sample.pressure, !p.isFinite { return layout.pressure?.column }
    if let t = sample.temperature, !t.isFinite { return layout.temperature?.column }
    return nil
  }

  /// Ground truth of the row, or `nil` when every ground-truth cell is empty. A quaternion with a
  /// NaN (BROAD while markers are occluded) or a non-finite vector is "unknown" (`nil`).
  private func groundTruth() throws -> GroundTruth? {
    var truth = GroundTruth()
    var anyCell = false
    if let a = layout.attitude {
      let w = try number(a.w)
      let x = try number(a.x)
      let y = try number(a.y)
      let z = try number(a.z)
      if w != nil || x != nil || y != nil || z != nil { anyCell = true }
      if let w, let x, let y, let z {
        var q = Quaternion(w: w, x: x, y: y, z: z)
        if q.isFinite {
          if a.isInverse { q = q.conjugate }
          // Skipped for the identity so that a stored quaternion reads back bit for bit.
          if a.earthRotation != .identity { q = a.earthRotation * q }
          truth.earthFromSensor = q
        }
      }
    }
    func truthVector(_ v: ColumnLayout.Vector?) throws -> SIMD3<Double>? {
      guard let v, let value = try vector(v) else { return nil }
      anyCell = true
      return value.isFinite ? value : nil
    }
    truth.angularVelocity = try truthVector(layout.angularVelocity)
    truth.gyroscopeBias = try truthVector(layout.gyroscopeBias)
    truth.gravity = try truthVector(layout.gravity)
    truth.linearAcceleration = try truthVector(layout.linearAcceleration)
    truth.position = try truthVector(layout.position)
    if let m = layout.movement, let flag = try number(m) {
      anyCell = true
      if !flag.isNaN { truth.isMovementPhase = flag != 0 }
    }
    return anyCell ? truth : nil
  }
}

extension CSVTableStream {
  /// The same stream described differently.
  func withDescriptor(_ descriptor: StreamDescriptor) -> CSVTableStream {
    var copy = self
    copy.descriptor = descriptor
    return copy
  }

  /// The same stream named `name` with `metadata`, keeping its sensors and no nominal rate: the
  /// descriptor of a one-file recording in a format that is usually a folder of tables.
  func withDescriptor(name: String, metadata: [String: String]) -> CSVTableStream {
    withDescriptor(
      StreamDescriptor(
        name: name, sensors: descriptor.sensors, nominalSampleRate: nil, metadata: metadata))
  }

  /// Reads the column header row; an empty file is a header error.
  static func readHeader(_ cursor: inout CSVCursor) throws -> [String] {
    var fields: [CSVField] = []
    guard try cursor.nextRow(into: &fields) else {
      throw RecordingError(
        .malformedHeader, file: cursor.bytes.fileName, line: cursor.lineNumber + 1,
        "the column header row is missing (empty file)")
    }
    return fields.map(cursor.bytes.string)
  }
}

extension RecordingError {
  /// The same error with another kind.
  func kind(_ kind: Kind) -> RecordingError {
    var copy = self
    copy.kind = kind
    return copy
  }
}
