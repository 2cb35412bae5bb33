// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import MotionDetectors
import MotionEvaluation  // StepRecording.Failure.pressureSources
import MotionSensors

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
      (`t pressure_kpa relative_altitude_m`); --json: one object per file on one line, \
      {"file", "samples": [{"t", "pressure_kpa", "relative_altitude_m"}]}. Both are written as \
      the samples are read. A pressure outside 1–200 kPa (a broken reading or the wrong unit) is \
      an error, or with --skip-invalid skipped and counted; a file without a usable pressure \
      reading is an error. A recording that cannot be read is reported on stderr (a --json \
      object already begun is closed with an "error" member) and the others are still read; the \
      status is then non-zero.
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

  @Flag(
    help:
      "Skip rows with NaN/infinite values, backwards timestamps, the wrong number of cells or pressures outside 1–200 kPa (counted on stderr) instead of failing."
  )
  var skipInvalid = false

  func validate() throws {
    guard !files.isEmpty else { throw ValidationError("give at least one recording") }
    try RecordingFormatOptions.validate(format: format, columns: columns)
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
    // Streamed: each result is written as it is computed (through one 64 KiB buffer), so memory
    // stays flat however long the barometer log is (collecting the rows took 1.6 GB for --json on
    // 3 million samples).
    let out = try TextOutput(path: nil)
    defer { try? out.finish() }
    // The same for every file: a bad mapping is the command's error, not each recording's.
    let columnMapping = try columns.map { try ColumnMapping(parsing: $0) }
    var failures = 0
    for file in files {
      do {
        try write(file, format: recordingFormat, columns: columnMapping, to: out)
      } catch {
        // One recording: its error is the command's. Of several, a bad one does not cost the
        // others their altitudes, as in `steps`; the status says that one failed.
        guard files.count > 1 else { throw error }
        failures += 1
        printToStandardError(describing(error, of: file))
      }
    }
    if failures > 0 {
      throw CLIError("\(failures) of \(files.count) recordings could not be read")
    }
  }

  /// Writes the altitudes of `file` to `out` (flushed before it returns or throws).
  private func write(
    _ file: String, format recordingFormat: RecordingFormat?, columns: ColumnMapping?,
    to out: TextOutput
  ) throws {
    let url = URL(fileURLWithPath: file)
    let mapping =
      try columns ?? (recordingFormat == nil ? Self.pressureTableMapping(url) : nil)
    let options = RecordingReader.Options(
      invalidRows: skipInvalid ? .skip : .fail, columnMapping: mapping)
    var stream = try RecordingReader.open(
      url, format: recordingFormat ?? (mapping != nil ? .columns : nil), options: options)
    var tracker = BarometerTracker()
    var written = 0
    var implausible = 0
    if !json, files.count > 1 { try out.writeLine("# \(file)") }
    // A failure part way through a JSON object still leaves valid JSON: the object is closed
    // with the error in it (and the command ends with a non-zero status).
    do {
      while let sample = try stream.next() {
        guard let pressure = sample.pressure else { continue }
        // Checked here, before the filter (which refuses such readings too), so that every one is
        // either an error or a counted skip, never a silent loss.
        guard BarometricAltitude.isPlausible(pressure: pressure) else {
          guard skipInvalid else {
            throw CLIError(
              "\(file): the pressure at t=\(sample.timestamp) s, \(pressure) kPa, is outside "
                + Self.plausibleRangeText
                + " (a broken reading, or the wrong unit); --skip-invalid skips and counts such rows"
            )
          }
          implausible += 1
          continue
        }
        guard let result = tracker.process(time: sample.timestamp, pressure: pressure) else {
          // Only a time that is not finite gets here; the reader refuses those rows first.
          implausible += 1
          continue
        }
        if json {
          if written == 0 {
            try out.write("{\"file\":\(try Self.jsonString(file)),\"samples\":[")
          }
          // Finite by construction; Swift's shortest round-trip text is valid JSON.
          try out.write(
            (written == 0 ? "" : ",") + "{\"pressure_kpa\":\(result.pressure),"
              + "\"relative_altitude_m\":\(result.altitude),\"t\":\(sample.timestamp)}")
        } else {
          try out.writeLine(
            String(format: "%.6f %.6f %.4f", sample.timestamp, result.pressure, result.altitude))
        }
        written += 1
      }
    } catch {
      // The original error is the one reported, even if closing the output fails too.
      if json, written > 0, let message = try? Self.jsonString("\(error)") {
        try? out.writeLine("],\"error\":\(message)}")
      }
      try? out.finish()
      throw pointingToSkipInvalid(error)
    }
    if json, written > 0 { try out.writeLine("]}") }
    try out.finish()
    let skipped = stream.skippedRowCount
    if skipped > 0 { printToStandardError("skipped \(skipped) invalid rows of \(file)") }
    if implausible > 0 {
      printToStandardError(
        "skipped \(implausible) rows of \(file) with a pressure outside \(Self.plausibleRangeText)"
      )
    }
    // A recording without one usable pressure reading is an error, not an empty success.
    guard written > 0 else {
      let refused = skipped + implausible
      throw CLIError(
        "\(file): no pressure samples"
          + (refused > 0 ? " (\(refused) rows were invalid and skipped)" : ""))
    }
  }

  /// The plausible pressures, for messages.
  static let plausibleRangeText = String(
    format: "the plausible %g–%g kPa", BarometricAltitude.plausiblePressureRange.lowerBound,
    BarometricAltitude.plausiblePressureRange.upperBound)

  /// `text` as a JSON string (quoted and escaped).
  static func jsonString(_ text: String) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes]
    return String(decoding: try encoder.encode(text), as: UTF8.self)
  }

  /// A mapping for the shared altitude tables (`t` and `pressure_hpa` or `pressure_kpa`), or `nil`
  /// when the header is not one of them.
  static func pressureTableMapping(_ url: URL) throws -> ColumnMapping? {
    let layouts = SharedTableLayout.layouts(of: url)
    guard let layout = layouts.first(where: \.hasPressure) else {
      // A shared table without a barometer (`t,ax,ay,az`, which `steps` and `activity` read, or
      // `t,gx,gy,gz`): no recording format has that header, so the reader would say it cannot
      // tell the format, where what is missing is the barometer.
      guard layouts.isEmpty else {
        throw CLIError(
          "\(url.path): no pressure column; altitude needs "
            + "\(StepRecording.Failure.pressureSources) (such as a barometer file, "
            + "NAME_pressure.csv)")
      }
      return nil
    }
    return try ColumnMapping(parsing: layout.columnMapping)
  }
}
