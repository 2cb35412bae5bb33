// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import Geomagnetism
import MotionSensors
import OpenCoreMotion

/// `motionctl replay FILE`: fuses a recording as fast as possible, one row per update.
struct ReplayCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "replay",
    abstract: "Fuse a recording as fast as possible and print device motion, one row per sample.",
    discussion: """
      Columns (CSV header; JSON Lines keys): \(CMDeviceMotion.tableColumns.joined(separator: ",")).
      Units are Core Motion's: seconds, radians, g with Apple's sign, rad/s, degrees (heading; \
      negative in the arbitrary frames).
      """)

  @Argument(
    help:
      "The recording (OpenCoreMotion CSV, BROAD CSV, … — detected from its header — or a shared data set's t,ax,ay,az[,gx,gy,gz] table)."
  )
  var file: String

  @Option(
    help:
      "Reference frame: arbitrary, arbitrary-corrected, magnetic-north, true-north (or Apple's names)."
  )
  var frame: ReferenceFrameOption = .arbitrary

  @Option(help: "Output format: csv or jsonl.")
  var output: OutputFormat = .csv

  @Option(name: .customLong("out"), help: "Write to this file instead of standard output.")
  var outputPath: String?

  @Option(
    help:
      "Recording format, when detection is not wanted (\(RecordingFormat.allCases.map(\.rawValue).joined(separator: ", ")))."
  )
  var format: String?

  @Option(
    help:
      "Column mapping for any CSV, e.g. 't=time,ax=accX,ay=accY,az=accZ,gx=gyrX,gy=gyrY,gz=gyrZ;units=-g,rad/s,s' (implies --format columns)."
  )
  var columns: String?

  @Option(help: "Location for true north as lat,lon[,altitude_m] (default: $COREMOTION_LOCATION).")
  var location: String?

  @Flag(
    help:
      "Estimate non-causally with the whole recording in view (forward-backward; more accurate, after the fact)."
  )
  var offline = false

  @Flag(
    help:
      "With --offline, keep the recording and the passes in memory (84 bytes per sample) instead of unlinked temporary files in $TMPDIR (bounded memory)."
  )
  var offlineInMemory = false

  @Flag(
    help:
      "Skip rows with NaN/infinite values, backwards timestamps or the wrong number of cells (counted on stderr) instead of failing."
  )
  var skipInvalid = false

  enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case csv, jsonl
  }

  func validate() throws {
    try RecordingFormatOptions.validate(format: format, columns: columns)
    if offlineInMemory && !offline {
      throw ValidationError(
        "--offline-in-memory chooses where --offline keeps its passes; add --offline")
    }
    // Given and ignored, a location (even a malformed one) did nothing without a word.
    if location != nil && frame != .trueNorth {
      throw ValidationError("--location places true north; it applies to --frame true-north only")
    }
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
    let mapping = try columns.map { try ColumnMapping(parsing: $0) }
    if let outputPath, outputPath != "-",
      let refusal = OutputPath.refusal(for: outputPath, inputs: [file])
    {
      throw CLIError("cannot write \(outputPath): \(refusal)")
    }
    let options = RecordingReader.Options(
      invalidRows: skipInvalid ? .skip : .fail, columnMapping: mapping)
    let url = URL(fileURLWithPath: file)
    // Without a format or a mapping, what `COREMOTION_SOURCE=replay:` reads: any detected format,
    // else a shared data set's plain table (`t,ax,ay,az[,gx,gy,gz][,pressure_hpa]`).
    let stream = CountingSampleStream(
      try recordingFormat == nil && mapping == nil
        ? RecordingReader.openIncludingSharedTables(url, options: options)
        : RecordingReader.open(
          url, format: recordingFormat ?? (mapping != nil ? .columns : nil), options: options))
    let tally = stream.tally
    let declination = try frame == .trueNorth ? declinationForTrueNorth(location) : nil

    let out = try TextOutput(path: outputPath)
    do {
      if output == .csv { try out.writeLine(CMDeviceMotion.tableColumns.joined(separator: ",")) }
      let encoder = JSONEncoder()
      // Stable output: Foundation's encoder does not keep the encoding order of keys.
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      let write = { (motion: CMDeviceMotion) throws in
        try out.writeLine(output == .csv ? motion.csvRow : try motion.jsonLine(using: encoder))
      }
      let summary =
        offline
        ? try DeviceMotionReplay.runOffline(
          stream, frame: frame.frame, declination: declination,
          storage: offlineInMemory ? .memory : .temporaryFiles, body: write)
        : try DeviceMotionReplay.run(
          stream, frame: frame.frame, declination: declination, body: write)
      // A header with no rows (or only invalid ones) is an error, not an empty success.
      guard tally.sampleCount > 0 else {
        let skipped = tally.skippedRowCount
        throw CLIError(
          "\(file): no data rows"
            + (skipped > 0 ? " (all \(skipped) rows were invalid and skipped)" : ""))
      }
      // Rows read but refused by the estimator are counted too; none accepted is an error.
      guard summary.deviceMotionCount > 0 else { throw CLIError(noUpdateReason(summary)) }
      try out.finish()
      if tally.skippedRowCount > 0 {
        printToStandardError("skipped \(tally.skippedRowCount) invalid rows of \(file)")
      }
      if summary.refusedSampleCount > 0 {
        printToStandardError(
          "left out \(summary.refusedSampleCount) of \(summary.fusionInputCount) samples of \(file) "
            + "that the estimator refused (\(Self.refusalReasons))")
      }
      if outputPath != nil {
        printToStandardError("replayed \(summary.deviceMotionCount) updates to \(outputPath!)")
      }
    } catch {
      out.abandon()
      throw pointingToSkipInvalid(error)
    }
  }
}

extension ReplayCommand {
  /// What the estimator refuses, for messages (`AttitudeEstimator.update`'s checks).
  static let refusalReasons =
    "a value that is not finite or beyond the sensor's range, such as a gyroscope in deg/s read "
    + "as rad/s, or a timestamp that does not move forward"

  /// Why a replay that read rows produced no update.
  func noUpdateReason(_ summary: DeviceMotionReplay.Summary) -> String {
    if summary.fusionInputCount == 0 {
      return
        "\(file): no sample has both an accelerometer and a gyroscope reading: no device motion"
    }
    if summary.refusedSampleCount >= summary.fusionInputCount {
      return "\(file): the estimator refused all \(summary.fusionInputCount) samples "
        + "(\(Self.refusalReasons)): no device motion"
    }
    return "\(file): no update in the \(frame.frame.name) frame (its reference, such as a magnetic "
      + "heading, was never established)"
  }
}

/// The magnetic declination in degrees east for a `lat,lon[,alt]` text or `$COREMOTION_LOCATION`.
func declinationForTrueNorth(_ locationText: String?) throws -> Double {
  let location: GeographicLocation
  if let locationText {
    location = try GeographicLocation(parsing: locationText)
  } else if let fromEnvironment = try GeographicLocation.fromEnvironment(
    ProcessInfo.processInfo.environment)
  {
    location = fromEnvironment
  } else {
    throw CLIError(
      "true north needs a location: pass --location lat,lon or set COREMOTION_LOCATION")
  }
  return magneticDeclination(at: location, date: Date())
}
