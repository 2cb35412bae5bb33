// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors
import MotionSensors

/// Reads the accelerometer (and pressure, if any) of a recording for step counting.
///
/// Besides every format ``RecordingReader`` detects, the shared steps layout (a header starting
/// `t,ax,ay,az`: seconds, specific force in m/s², the Oxford and IPOL files of
/// `../shared/data/steps/`) is recognised from its header and read through a column mapping. The
/// same header in g with Apple's sign (MotionSense, iPhone loggers) is told apart by the median
/// magnitude of its first samples, as ``ActivityRecording`` does.
package struct StepRecording: Sendable {
  /// Why a recording's steps and floors could not be counted.
  package enum Failure: Error, CustomStringConvertible, Equatable {
    /// The barometer file's times and the accelerometer's do not overlap: they are not on one
    /// clock (say, seconds since the recording began against Unix time), so the floors would be
    /// matched against the wrong steps.
    case clocksDoNotOverlap(
      barometer: String, accelerometer: ClosedRange<Double>, pressure: ClosedRange<Double>)
    /// The recording gave no accelerometer sample (a header with no rows, or no accelerometer
    /// columns at all): "0 steps" would look like a result, so it is an error.
    case noAccelerometerSamples(recording: String)
    /// Nearly all (99 % or more) of the intervals between the recording's accelerometer samples
    /// are longer than the step detector bridges (``StepDetector/Parameters/longestInputGap``),
    /// so it restarts at nearly every sample and cannot find a step: a time column in
    /// milliseconds read as seconds, or a logger at 1 Hz or less. "0 steps" would look like a
    /// result, so it is an error. A recording with dense stretches among sparse ones (a logger
    /// slowed down in the background between walks) is counted: its dense stretches hold steps.
    case accelerometerTooSparse(recording: String, longestGap: Double, sparse: Int, intervals: Int)
    /// The barometer file gave no pressure reading (no pressure column, or no rows): floors
    /// left `null` would look as if the file had not been asked for.
    case noPressureReadings(barometer: String)

    /// What gives pressure readings, for this failure and for other tools' messages about a file
    /// without any (`motionctl altitude`), so that they name the same columns and formats.
    package static let pressureSources =
      "a pressure column such as pressure_hpa or pressure_kpa, or a recording format with a "
      + "barometer"

    package var description: String {
      switch self {
      case .noPressureReadings(let file):
        return "\(file): no pressure readings (\(Self.pressureSources))"
      case .noAccelerometerSamples(let recording):
        return "\(recording): no accelerometer samples"
      case .accelerometerTooSparse(let recording, let longestGap, let sparse, let intervals):
        return "\(recording): \(sparse) of the \(intervals) intervals between accelerometer "
          + "samples are longer than \(longestGap) s, too sparse to count steps (is the time "
          + "column in milliseconds rather than seconds?)"
      case .clocksDoNotOverlap(let file, let accelerometer, let pressure):
        return String(
          format:
            "%@: its times (%.3f–%.3f s) do not overlap the accelerometer's (%.3f–%.3f s); "
            + "the barometer file must be on the recording's clock",
          file, pressure.lowerBound, pressure.upperBound, accelerometer.lowerBound,
          accelerometer.upperBound)
      }
    }
  }

  /// Sample times, s.
  package var times: [Double] = []
  /// Specific force, m/s² (+9.81 up at rest), one per time.
  package var accelerations: [SIMD3<Double>] = []
  /// Barometer readings (time s, pressure kPa), in the recording's order.
  package var pressures: [(time: Double, pressure: Double)] = []
  /// Whether any sample carried a pressure reading.
  package var hasPressure: Bool { !pressures.isEmpty }

  /// Loads `url`, with an explicit format or column mapping when given (else detection, the
  /// shared steps layout first). Samples without an accelerometer reading are skipped.
  package static func load(
    _ url: URL, format: RecordingFormat? = nil, columns: ColumnMapping? = nil
  ) throws -> StepRecording {
    var recording = StepRecording()
    try read(
      url, format: format, columns: columns,
      accelerometer: {
        recording.times.append($0)
        recording.accelerations.append($1)
      },
      pressure: { recording.pressures.append(($0, $1)) })
    return recording
  }

  /// Reads `url` as ``load(_:format:columns:)`` does, handing over each accelerometer sample
  /// (time s, specific force m/s²), each gyroscope reading (time s, rad/s) and each barometer
  /// reading (time s, pressure kPa) in the recording's order without keeping them, so that memory
  /// does not grow with the file. (A plain table's accelerometer samples wait until its units
  /// are decided, up to `AccelerationUnitProbe.sampleCount` measurements, or 20 times as many
  /// samples when the file starts with zero placeholder rows: its gyroscope readings run that
  /// far ahead of them.) Rows with a non-finite value or a backwards timestamp
  /// fail the read, or with `invalidRows` ``RecordingReader/InvalidRowPolicy/skip`` are left out;
  /// returns how many were.
  @discardableResult
  package static func read(
    _ url: URL, format: RecordingFormat? = nil, columns: ColumnMapping? = nil,
    invalidRows: RecordingReader.InvalidRowPolicy = .fail,
    accelerometer: (Double, SIMD3<Double>) throws -> Void,
    gyroscope: (Double, SIMD3<Double>) throws -> Void = { _, _ in },
    pressure: (Double, Double) throws -> Void = { _, _ in }
  ) throws -> Int {
    var mapping = columns
    var isPlainTable = false
    if format == nil, mapping == nil {
      let layouts = SharedTableLayout.layouts(of: url)
      if let layout = SharedTableLayout.columnMapping(reading: layouts) {
        mapping = try ColumnMapping(parsing: layout)
        isPlainTable = layouts.contains(.steps)
      }
    }
    var stream = try RecordingReader.open(
      url, format: format ?? (mapping != nil ? .columns : nil),
      options: RecordingReader.Options(invalidRows: invalidRows, columnMapping: mapping))
    // A plain `t,ax,ay,az` table is specific force in m/s² (the shared steps layout) or g with
    // Apple's sign (iPhone loggers, the shared activity layout): told apart by its first samples,
    // which wait until then.
    var detector = PlainTableUnitDetector(units: isPlainTable ? nil : .metresPerSecondSquared)
    func deliver(_ time: Double, _ value: SIMD3<Double>, in units: ActivityRecording.Units) throws {
      try accelerometer(time, units == .appleG ? -value * standardGravity : value)
    }
    while let sample = try stream.next() {
      if let reading = sample.pressure { try pressure(sample.timestamp, reading) }
      if let rate = sample.gyroscope { try gyroscope(sample.timestamp, rate) }
      guard let value = sample.accelerometer else { continue }
      try detector.add(time: sample.timestamp, value: value, deliver: deliver)
    }
    try detector.finish(deliver: deliver)
    return stream.skippedRowCount
  }

  /// m/s² per g.
  private static let standardGravity = 9.80665

  /// Counts the steps, distance and floors of `url` while reading it: memory holds the step
  /// times, not the samples. A recording without one accelerometer sample is
  /// ``Failure/noAccelerometerSamples(recording:)``, not zero steps, and one whose samples are
  /// nearly all too far apart for the detector is
  /// ``Failure/accelerometerTooSparse(recording:longestGap:sparse:intervals:)``. Floors take a second read (only when there is a barometer), so that
  /// every step is known before the pressure around it, exactly as
  /// ``StepCount/floors(pressures:)`` has it over a loaded recording.
  ///
  /// - Parameters:
  ///   - pressureFile: where the barometer readings are when they are not in `url` (a logger
  ///     that writes one file per sensor, such as the IPIN layout's `…_pressure.csv` beside
  ///     `…_acc.csv`), on the same clock: any recording format, or a shared pressure table.
  ///     Without it the barometer is the one in `url`, if any. Its invalid rows (a timestamp a
  ///     little earlier than the row before, as Android loggers write now and then) are always
  ///     skipped: the floors need only its good readings, and failing there would lose the
  ///     steps too.
  ///   - invalidRows: what a row of `url` with a non-finite value or a backwards timestamp does:
  ///     fail the count (the default) or be skipped.
  ///   - noPressureReadings: told when `pressureFile` gave no pressure reading; by default it
  ///     throws ``Failure/noPressureReadings(barometer:)`` (a file asked for by name). When it
  ///     returns instead (a file found beside the recording, not asked for), the barometer is the
  ///     one in `url`, if any.
  ///   - skipped: told, for each file read, how many invalid rows were skipped (when any were).
  ///   - refused: told how many of the recording's accelerometer samples, of how many, the step
  ///     detector left out (when any were): readable rows whose value is implausibly large (say
  ///     1e308) or whose time repeats the one before. They are not invalid rows, so without this
  ///     the count would leave them out unsaid.
  ///   - refusedPressures: told how many barometer readings, of how many, the floor counter left
  ///     out (when any were), and from which file: a pressure outside
  ///     ``BarometricAltitude/plausiblePressureRange`` (1–200 kPa), such as a column in Pa under
  ///     an hPa heading. When it left out every reading the floors are `nil`, as without a
  ///     barometer, rather than zero floors from no data.
  package static func count(
    _ url: URL, format: RecordingFormat? = nil, columns: ColumnMapping? = nil,
    pressureFile: URL? = nil, invalidRows: RecordingReader.InvalidRowPolicy = .fail,
    parameters: StepDetector.Parameters = .default, userHeight: Double? = nil,
    noPressureReadings: (_ barometer: URL) throws -> Void = {
      throw Failure.noPressureReadings(barometer: $0.path)
    },
    skipped: (_ file: URL, _ rows: Int) -> Void = { _, _ in },
    refused: (_ file: URL, _ samples: Int, _ of: Int) -> Void = { _, _, _ in },
    refusedPressures: (_ file: URL, _ readings: Int, _ of: Int) -> Void = { _, _, _ in }
  ) throws -> (count: StepCount, floors: (ascended: Int, descended: Int)?) {
    var counter = StepCounter(parameters: parameters)
    var hasPressure = false
    var accelerometerTimes = TimeRange()
    var accelerometerSamples = 0
    // How many intervals between consecutive samples the detector cannot bridge.
    var previousTime = -Double.infinity
    var sparseIntervals = 0
    let skippedRows = try read(
      url, format: format, columns: columns, invalidRows: invalidRows,
      accelerometer: {
        accelerometerSamples += 1
        accelerometerTimes.add($0)
        if previousTime.isFinite, $0 - previousTime > parameters.longestInputGap {
          sparseIntervals += 1
        }
        previousTime = $0
        counter.add(time: $0, specificForce: $1)
      },
      gyroscope: { counter.add(time: $0, rotationRate: $1) },
      pressure: { _, _ in hasPressure = true })
    if skippedRows > 0 { skipped(url, skippedRows) }
    guard accelerometerSamples > 0 else {
      throw Failure.noAccelerometerSamples(recording: url.path)
    }
    // A long gap now and then is a pause in the logging, and a logger slowed down between walks
    // still has its walks' dense stretches; only when nearly every interval is that long is
    // there nothing to count (a unit mistake, or a logger at 1 Hz or less).
    let intervals = accelerometerSamples - 1
    guard intervals == 0 || sparseIntervals * 100 < intervals * 99 else {
      throw Failure.accelerometerTooSparse(
        recording: url.path, longestGap: parameters.longestInputGap, sparse: sparseIntervals,
        intervals: intervals)
    }
    let count = counter.finish(userHeight: userHeight)
    if counter.refusedSamples > 0 { refused(url, counter.refusedSamples, accelerometerSamples) }
    var floors = WalkedFloors(stepTimes: count.stepTimes)
    var barometerFileRead = false
    if let pressureFile {
      var pressureTimes = TimeRange()
      let skippedReadings = try read(
        pressureFile, invalidRows: .skip, accelerometer: { _, _ in },
        pressure: {
          pressureTimes.add($0)
          floors.add(time: $0, pressure: $1)
        })
      if skippedReadings > 0 { skipped(pressureFile, skippedReadings) }
      if let pressure = pressureTimes.range {
        barometerFileRead = true
        hasPressure = true
        if let accelerometer = accelerometerTimes.range, !accelerometer.overlaps(pressure) {
          throw Failure.clocksDoNotOverlap(
            barometer: pressureFile.path, accelerometer: accelerometer, pressure: pressure)
        }
      } else {
        try noPressureReadings(pressureFile)
      }
    }
    if !barometerFileRead, hasPressure {
      try read(
        url, format: format, columns: columns, invalidRows: invalidRows,
        accelerometer: { _, _ in }, pressure: { floors.add(time: $0, pressure: $1) })
    }
    guard hasPressure else { return (count, nil) }
    if floors.refusedReadingCount > 0 {
      refusedPressures(
        barometerFileRead ? pressureFile ?? url : url, floors.refusedReadingCount,
        floors.readingCount)
    }
    return (count, floors.result)
  }

  /// The barometer file that a logger writing one file per sensor leaves beside the
  /// accelerometer's, when it exists: `NAME_pressure.csv` for `NAME_acc.csv` (the IPIN layout of
  /// `../shared/data/altitude/README.md`). `nil` for any other name.
  package static func siblingPressureFile(of url: URL) -> URL? {
    let name = url.lastPathComponent
    let suffix = "_acc.csv"
    guard name.count > suffix.count, name.lowercased().hasSuffix(suffix) else { return nil }
    let sibling = url.deletingLastPathComponent().appendingPathComponent(
      String(name.dropLast(suffix.count)) + "_pressure.csv")
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: sibling.path, isDirectory: &isDirectory),
      !isDirectory.boolValue
    else { return nil }
    return sibling
  }
}

/// The earliest and latest of the times seen.
private struct TimeRange {
  private(set) var range: ClosedRange<Double>?

  mutating func add(_ time: Double) {
    guard time.isFinite else { return }
    if let current = range {
      range = min(current.lowerBound, time)...max(current.upperBound, time)
    } else {
      range = time...time
    }
  }
}
