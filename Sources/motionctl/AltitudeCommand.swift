// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import MotionSensors
import OpenCoreMotion

/// `motionctl altitude FILE...`: relative altitude from a recording's barometer, as `CMAltimeter`
/// computes it, for every pressure sample.
struct AltitudeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "altitude",
    abstract:
      "Print the relative altitude (m) and pressure (kPa) of every pressure sample in recordings.",
    discussion: """
      Relative altitude is the standard-atmosphere height difference from the first pressure \
      sample, as CMAltimeter reports it. Reads every recording format motionctl knows, plus CSVs \
      whose header has `t` and `pressure_hpa` or `pressure_kpa`. Text output: one line per sample \
      (`t pressure_kpa relative_altitude_m`); --json: one object per file, \
      {"file", "samples": [{"t", "pressure_kpa", "relative_altitude_m"}]}.
      """)

  @Argument(help: "The recordings.")
  var files: [String]

  @Flag(help: "Print one JSON object per file.")
  var json = false

  @Option(
    help:
      "Recording format, when detection is not wanted (\(RecordingFormat.allCases.map(\.rawValue).joined(separator: ", ")))."
  )
  var format: String?

  @Option(
    help: "Column mapping for any CSV, e.g. 't=time,p=baro;units=hPa' (implies --format columns).")
  var columns: String?

  @Flag(help: "Skip rows with NaN/infinite values or backwards timestamps instead of failing.")
  var skipInvalid = false

  func validate() throws {
    guard !files.isEmpty else { throw ValidationError("give at least one recording") }
  }

  func run() throws {
    let recordingFormat = try format.map { name -> RecordingFormat in
      guard let format = RecordingFormat(rawValue: name) else {
        throw CLIError(
          "unknown format '\(name)'; known: \(RecordingFormat.allCases.map(\.rawValue).joined(separator: ", "))"
        )
      }
      return format
    }
    for file in files {
      let url = URL(fileURLWithPath: file)
      let mapping =
        try columns.map { try ColumnMapping(parsing: $0) }
        ?? (recordingFormat == nil ? Self.pressureTableMapping(url) : nil)
      let options = RecordingReader.Options(
        invalidRows: skipInvalid ? .skip : .fail, columnMapping: mapping)
      var stream = try RecordingReader.open(
        url, format: recordingFormat ?? (mapping != nil ? .columns : nil), options: options)
      var adapter = PressureAltitudeAdapter()
      var rows: [AltitudeRow] = []
      while let sample = try stream.next() {
        guard let pressure = sample.pressure,
          let result = adapter.process(time: sample.timestamp, pressure: pressure)
        else { continue }
        rows.append(
          AltitudeRow(
            t: sample.timestamp, pressureKPa: result.pressure, relativeAltitudeM: result.altitude))
      }
      if json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(AltitudeFile(file: file, samples: rows))
        print(String(decoding: data, as: UTF8.self))
      } else {
        if files.count > 1 { print("# \(file)") }
        if rows.isEmpty { printToStandardError("\(file): no pressure samples") }
        for row in rows {
          print(String(format: "%.6f %.6f %.4f", row.t, row.pressureKPa, row.relativeAltitudeM))
        }
      }
    }
  }

  /// A mapping for the shared altitude tables (`t` and `pressure_hpa` or `pressure_kpa`), or `nil`
  /// when the header is not one of them.
  static func pressureTableMapping(_ url: URL) throws -> ColumnMapping? {
    guard let layout = SharedTableLayout.layouts(of: url).first(where: \.hasPressure) else {
      return nil
    }
    return try ColumnMapping(parsing: layout.columnMapping)
  }
}

/// One pressure sample of `motionctl altitude --json` (finite by construction: the adapter skips
/// readings that are not).
private struct AltitudeRow: Encodable {
  var t: Double
  var pressureKPa: Double
  var relativeAltitudeM: Double

  enum CodingKeys: String, CodingKey {
    case t
    case pressureKPa = "pressure_kpa"
    case relativeAltitudeM = "relative_altitude_m"
  }
}

/// One file of `motionctl altitude --json`.
private struct AltitudeFile: Encodable {
  var file: String
  var samples: [AltitudeRow]
}
