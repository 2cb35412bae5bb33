// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import MotionEvaluation

/// `motionctl activity FILE...`: motion activity segments of recordings.
struct ActivityCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "activity",
    abstract:
      "Classify motion activity (stationary, walking, running, cycling, automotive) in recordings.",
    discussion: """
      Reads CSV files with columns t, ax, ay, az (extra columns ignored; g with Apple's sign or m/s² \
      with Android's sign, told apart by the magnitude) or any recording format motionctl replays, \
      and runs the causal classifier over the accelerometer. Prints one segment per reported change. \
      Rows with NaN or infinite values or time going back are skipped and counted on stderr; a \
      file without an accelerometer sample is an error. A recording that cannot be classified is \
      reported on stderr and the others are still classified; the status is then non-zero.
      """)

  @Argument(help: "Recordings.")
  var files: [String]

  @Flag(
    help:
      "Print JSON, one object per file per line: {\"file\", \"segments\": [{\"start\", \"end\", \"stationary\", \"walking\", \"running\", \"cycling\", \"automotive\", \"unknown\", \"confidence\"}]}."
  )
  var json = false

  struct FileResult: Codable {
    var file: String
    var segments: [ActivitySegment]
  }

  func run() throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var failures = 0
    for file in files {
      do {
        try classify(file, encoder: encoder)
      } catch {
        // One recording: its error is the command's. Of several, a bad one does not cost the
        // others their segments, as in `steps`; the status says that one failed.
        guard files.count > 1 else { throw error }
        failures += 1
        printToStandardError("\(error)")
      }
    }
    if failures > 0 {
      throw CLIError("\(failures) of \(files.count) recordings could not be classified")
    }
  }

  /// Classifies `file` and prints its segments; every error names the file.
  private func classify(_ file: String, encoder: JSONEncoder) throws {
    // Classified while read: memory holds the segments, not the recording.
    let segments: [ActivitySegment]
    let summary: ActivityRecording.Summary
    do {
      (segments, summary) = try ActivitySegment.segments(reading: URL(fileURLWithPath: file))
    } catch {
      // Reader errors already name the file (with the line); others get its name here.
      let message = "\(error)"
      let path = URL(fileURLWithPath: file).path
      throw CLIError(
        message.hasPrefix(path) || message.hasPrefix(file) ? message : "\(file): \(message)")
    }
    // Rows with NaN or infinite values, or going back in time, are left out of the
    // classification: counted here, never lost silently; with none left the file is an error.
    let skipped = summary.skippedRows
    guard summary.sampleCount > 0 else {
      throw CLIError(
        "\(file): no accelerometer samples"
          + (skipped > 0 ? " (all \(skipped) rows were invalid and skipped)" : ""))
    }
    if skipped > 0 {
      printToStandardError(
        "skipped \(skipped) invalid rows of \(file) (NaN or infinite values, or time going back)")
    }
    if json {
      print(
        String(
          decoding: try encoder.encode(FileResult(file: file, segments: segments)), as: UTF8.self)
      )
      return
    }
    print("\(file)  (\(summary.sampleCount) samples, \(summary.units.rawValue))")
    for segment in segments {
      print(
        String(format: "  %9.2f – %9.2f s  ", segment.start, segment.end)
          + segment.activityDescription.padding(toLength: 24, withPad: " ", startingAt: 0)
          + segment.confidence)
    }
  }
}
