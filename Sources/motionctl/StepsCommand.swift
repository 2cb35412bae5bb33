// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import MotionEvaluation
import MotionSensors

/// `motionctl steps FILE...`: steps and distance counted in recordings from the sensor data alone.
struct StepsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "steps",
    abstract: "Count steps (and distance) in recordings from their accelerometer data.",
    discussion: """
      Reads every recording format motionctl knows, and the shared steps layout (header t,ax,ay,az: \
      seconds and specific force in m/s²) directly. Steps are counted as CMPedometer counts them: the \
      steps of a stretch the activity classifier takes for a bicycle or vehicle ride are left out \
      (RidingStepGate). Distance uses the cadence-dependent stride model \
      (--height refines it). Floors (walked, not ridden: FloorCounter) need a barometer: a pressure column \
      (t,ax,ay,az,pressure_hpa or pressure_kpa), a --pressure file on the same clock, or for a file named \
      NAME_acc.csv the NAME_pressure.csv beside it (one file per sensor, as the IPIN logs have it); \
      without one they are null. A --pressure file without a pressure reading is an error; such a \
      NAME_pressure.csv is said on stderr and the floors are null. Rows with NaN or infinite \
      values, time going back or the wrong number of cells fail a recording (--skip-invalid skips and counts them); in a separate \
      barometer file they are \
      always skipped and counted on stderr. A recording whose accelerometer samples are nearly all \
      (99 %) more than 1 s apart (a time column in ms read as s) is an error, not 0 steps. Readable samples \
      the step detector refuses (an implausibly large value, a repeated time) are counted on \
      stderr, and so are pressures outside 1–200 kPa (a column in Pa under an hPa heading): the \
      floors are null when no reading is left. A recording that \
      cannot be read is reported on stderr and the others are still counted; the status is then \
      non-zero.
      """)

  @Argument(help: "Recording files.")
  var files: [String]

  @Option(
    help:
      "Recording format, when detection is not wanted (\(RecordingFormat.allCases.map(\.rawValue).joined(separator: ", ")))."
  )
  var format: String?

  @Option(
    help:
      "Column mapping for any CSV, e.g. 't=time,ax=accX,ay=accY,az=accZ;units=-g,s' (implies --format columns)."
  )
  var columns: String?

  @Option(
    help: ArgumentHelp(
      "A file with the barometer readings of the (one) recording, on its clock.",
      valueName: "pressure-file"))
  var pressure: String?

  @Option(help: "The walker's height in metres, for the stride length.")
  var height: Double?

  @Flag(
    help:
      "Skip rows with NaN/infinite values, backwards timestamps or the wrong number of cells (counted on stderr) instead of failing."
  )
  var skipInvalid = false

  @Flag(
    help:
      "Print one JSON object per file: {\"file\", \"steps\", \"step_times\", \"distance_m\", \"floors_ascended\", \"floors_descended\"}, and \"apple\" ({\"steps\", \"distance_m\", \"floors_ascended\", \"floors_descended\"}) when a SensorLog log records Apple's own pedometer."
  )
  var json = false

  /// One file's result, as `--json` prints it.
  struct Output: Codable {
    var file: String
    var steps: Int
    var stepTimes: [Double]
    var distance: Double
    var floorsAscended: Int?
    var floorsDescended: Int?
    /// What Apple's own pedometer counted, when the recording logs it (SensorLog).
    var apple: ApplePedometer?

    /// Apple's `CMPedometer` totals logged beside the sensors (absent from the JSON otherwise).
    struct ApplePedometer: Codable {
      var steps: Int
      var distance: Double?
      var floorsAscended: Int?
      var floorsDescended: Int?

      enum CodingKeys: String, CodingKey {
        case steps
        case distance = "distance_m"
        case floorsAscended = "floors_ascended"
        case floorsDescended = "floors_descended"
      }

      func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(steps, forKey: .steps)
        try container.encode(distance, forKey: .distance)  // null when not logged
        try container.encode(floorsAscended, forKey: .floorsAscended)
        try container.encode(floorsDescended, forKey: .floorsDescended)
      }
    }

    enum CodingKeys: String, CodingKey {
      case file, steps, apple
      case stepTimes = "step_times"
      case distance = "distance_m"
      case floorsAscended = "floors_ascended"
      case floorsDescended = "floors_descended"
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(file, forKey: .file)
      try container.encode(steps, forKey: .steps)
      try container.encode(stepTimes, forKey: .stepTimes)
      try container.encode(distance, forKey: .distance)
      try container.encode(floorsAscended, forKey: .floorsAscended)  // null, not absent
      try container.encode(floorsDescended, forKey: .floorsDescended)
      try container.encodeIfPresent(apple, forKey: .apple)
    }
  }

  func validate() throws {
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
    let mapping = try columns.map { try ColumnMapping(parsing: $0) }
    if let height, !(height.isFinite && height > 0.5 && height < 2.8) {
      throw CLIError("--height must be in metres, between 0.5 and 2.8")
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    if pressure != nil, files.count != 1 {
      throw CLIError("--pressure belongs to one recording; give exactly one file with it")
    }
    var failures = 0
    for file in files {
      let url = URL(fileURLWithPath: file)
      let sibling = pressure == nil ? StepRecording.siblingPressureFile(of: url) : nil
      let pressureFile = pressure.map { URL(fileURLWithPath: $0) } ?? sibling
      var barometerIgnored = false
      // Read as a stream: memory holds the step times, not the recording. One unreadable file
      // does not cost the others their counts.
      let result: (count: StepCount, floors: (ascended: Int, descended: Int)?)
      do {
        result = try StepRecording.count(
          url, format: recordingFormat, columns: mapping, pressureFile: pressureFile,
          invalidRows: skipInvalid ? .skip : .fail, userHeight: height,
          noPressureReadings: { barometer in
            // Asked for by name, an empty barometer file is an error. Found beside the recording,
            // it was not asked for: its steps still count, and the notice says why floors are null.
            guard sibling != nil else {
              throw StepRecording.Failure.noPressureReadings(barometer: barometer.path)
            }
            barometerIgnored = true
            printToStandardError(
              "\(barometer.path): no pressure readings, so it gives \(file) no floors")
          },
          skipped: { skippedFile, rows in
            printToStandardError(
              "skipped \(rows) invalid rows of \(skippedFile.path) (NaN or infinite values, time going back, or the wrong number of cells)"
            )
          },
          refused: { refusedFile, samples, total in
            printToStandardError(
              "left out \(samples) of \(total) accelerometer samples of \(refusedFile.path) that "
                + "the step detector refused (an implausibly large value, or a timestamp that "
                + "does not move forward)")
          },
          refusedPressures: { barometer, readings, total in
            let range = AltitudeCommand.plausibleRangeText
            let reason =
              "(broken readings, or a column in another unit, such as Pa under an hPa heading)"
            printToStandardError(
              readings == total
                ? "all \(total) pressure readings of \(barometer.path) are outside \(range) "
                  + "\(reason), so \(file) gets no floors"
                : "left out \(readings) of \(total) pressure readings of \(barometer.path) "
                  + "outside \(range) \(reason)")
          })
      } catch {
        // One recording: its error is the command's, as it always was.
        let error = pointingToSkipInvalid(error)
        guard files.count > 1 else { throw error }
        failures += 1
        printToStandardError(describing(error, of: file))
        continue
      }
      let (count, floors) = result
      // Millisecond resolution is plenty for step times and keeps the output short.
      let output = Output(
        file: file, steps: count.stepTimes.count,
        stepTimes: count.stepTimes.map { ($0 * 1000).rounded() / 1000 },
        distance: (count.distance * 100).rounded() / 100, floorsAscended: floors?.ascended,
        floorsDescended: floors?.descended,
        apple: mapping == nil && (recordingFormat ?? .sensorLog) == .sensorLog
          ? applePedometer(url) : nil)
      if json {
        print(String(decoding: try encoder.encode(output), as: UTF8.self))
      } else {
        var line = String(format: "%@: %d steps, %.1f m", file, output.steps, output.distance)
        if let floors {
          line += ", floors \(floors.ascended) up, \(floors.descended) down"
          if let pressureFile, !barometerIgnored { line += " (barometer: \(pressureFile.path))" }
        }
        if let apple = output.apple {
          line += "; Apple's CMPedometer in the log: \(apple.steps) steps"
          if let distance = apple.distance { line += String(format: ", %.1f m", distance) }
        }
        print(line)
      }
    }
    if failures > 0 {
      throw CLIError("\(failures) of \(files.count) recordings could not be counted")
    }
  }

  /// Apple's pedometer totals when the recording is a SensorLog log that has them; a log that
  /// cannot be read a second time is said on stderr and has none.
  func applePedometer(_ url: URL) -> Output.ApplePedometer? {
    do {
      guard let totals = try SensorLogPedometer.totals(in: url) else { return nil }
      return Output.ApplePedometer(
        steps: totals.steps, distance: totals.distance.map { ($0 * 100).rounded() / 100 },
        floorsAscended: totals.floorsAscended, floorsDescended: totals.floorsDescended)
    } catch {
      printToStandardError("\(url.path): Apple's pedometer columns could not be read: \(error)")
      return nil
    }
  }
}
