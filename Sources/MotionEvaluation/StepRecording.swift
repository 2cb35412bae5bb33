// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors
import MotionSensors

/// Reads the accelerometer (and pressure, if any) of a recording for step counting.
///
/// Besides every format ``RecordingReader`` detects, the shared steps layout (a header starting
/// `t,ax,ay,az`: seconds, specific force in m/s², the Oxford and IPOL files of
/// `../shared/data/steps/`) is recognised from its header and read through a column mapping.
package struct StepRecording: Sendable {
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
  /// (time s, specific force m/s²) and each barometer reading (time s, pressure kPa) in the
  /// recording's order without keeping them, so that memory does not grow with the file.
  package static func read(
    _ url: URL, format: RecordingFormat? = nil, columns: ColumnMapping? = nil,
    accelerometer: (Double, SIMD3<Double>) throws -> Void,
    pressure: (Double, Double) throws -> Void = { _, _ in }
  ) throws {
    var mapping = columns
    if format == nil, mapping == nil, SharedTableLayout.layouts(of: url).contains(.steps) {
      mapping = try ColumnMapping(parsing: SharedTableLayout.steps.columnMapping)
    }
    var stream = try RecordingReader.open(
      url, format: format ?? (mapping != nil ? .columns : nil),
      options: RecordingReader.Options(columnMapping: mapping))
    while let sample = try stream.next() {
      if let reading = sample.pressure { try pressure(sample.timestamp, reading) }
      if let force = sample.accelerometer { try accelerometer(sample.timestamp, force) }
    }
  }

  /// Counts the steps, distance and floors of `url` while reading it: memory holds the step
  /// times, not the samples. Floors take a second read of the file (only when the first found a
  /// barometer reading), so that every step is known before the pressure around it, exactly as
  /// ``StepCount/floors(pressures:)`` has it over a loaded recording.
  package static func count(
    _ url: URL, format: RecordingFormat? = nil, columns: ColumnMapping? = nil,
    parameters: StepDetector.Parameters = .default, userHeight: Double? = nil
  ) throws -> (count: StepCount, floors: (ascended: Int, descended: Int)?) {
    var counter = StepCounter(parameters: parameters)
    var hasPressure = false
    try read(
      url, format: format, columns: columns,
      accelerometer: { counter.add(time: $0, specificForce: $1) },
      pressure: { _, _ in hasPressure = true })
    let count = counter.finish(userHeight: userHeight)
    guard hasPressure else { return (count, nil) }
    var floors = WalkedFloors(stepTimes: count.stepTimes)
    try read(
      url, format: format, columns: columns, accelerometer: { _, _ in },
      pressure: { floors.add(time: $0, pressure: $1) })
    return (count, floors.result)
  }
}
