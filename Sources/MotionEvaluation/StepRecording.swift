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

  /// The column mapping for the shared steps layout.
  package static let sharedStepsMapping = "t=t,ax=ax,ay=ay,az=az;units=m/s^2,s"

  /// Loads `url`, with an explicit format or column mapping when given (else detection, the
  /// shared steps layout first). Samples without an accelerometer reading are skipped.
  package static func load(
    _ url: URL, format: RecordingFormat? = nil, columns: ColumnMapping? = nil
  ) throws -> StepRecording {
    var mapping = columns
    if format == nil, mapping == nil, try isSharedStepsLayout(url) {
      mapping = try ColumnMapping(parsing: sharedStepsMapping)
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

  /// Whether the file's first line is a `t,ax,ay,az[,...]` header.
  package static func isSharedStepsLayout(_ url: URL) throws -> Bool {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue
    else { return false }
    let handle = try FileHandle(forReadingFrom: url)
    defer { try? handle.close() }
    let head = try handle.read(upToCount: 256) ?? Data()
    let line = String(decoding: head.prefix { $0 != 0x0A && $0 != 0x0D }, as: UTF8.self)
    let names = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    return names.count >= 4 && Array(names.prefix(4)) == ["t", "ax", "ay", "az"]
  }
}
