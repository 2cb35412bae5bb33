// SPDX-License-Identifier: Apache-2.0

import Foundation
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
    var mapping = columns
    if format == nil, mapping == nil, SharedTableLayout.layouts(of: url).contains(.steps) {
      mapping = try ColumnMapping(parsing: SharedTableLayout.steps.columnMapping)
    }
    var stream = try RecordingReader.open(
      url, format: format ?? (mapping != nil ? .columns : nil),
      options: RecordingReader.Options(columnMapping: mapping))
    var recording = StepRecording()
    while let sample = try stream.next() {
      if let pressure = sample.pressure { recording.pressures.append((sample.timestamp, pressure)) }
      guard let acceleration = sample.accelerometer else { continue }
      recording.times.append(sample.timestamp)
      recording.accelerations.append(acceleration)
    }
    return recording
  }
}
