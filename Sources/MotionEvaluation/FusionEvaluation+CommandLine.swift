// SPDX-License-Identifier: Apache-2.0

import Foundation

extension FusionEvaluation {
  /// The evaluation as JSON: `{"mode":…, "trials":[{"name":…, "total":…, "heading":…,
  /// "inclination":…}], "mean":{…}}` (RMS errors in degrees).
  public static func json(_ result: EvaluationResult) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: try encoder.encode(result), as: UTF8.self)
  }

  /// The evaluation as an aligned text table (degrees), one row per trial and the mean.
  public static func table(_ result: EvaluationResult) -> String {
    let width = Swift.max(4, result.trials.map(\.name.count).max() ?? 0)
    func pad(_ s: String) -> String { s.padding(toLength: width, withPad: " ", startingAt: 0) }
    func number(_ x: Double) -> String {
      let text = String(format: "%.2f", x)
      return String(repeating: " ", count: Swift.max(0, 8 - text.count)) + text
    }
    var lines = ["mode: \(result.mode.rawValue) (RMS errors in degrees)"]
    lines.append(pad("trial") + "   total heading incl.")
    for t in result.trials {
      lines.append(pad(t.name) + number(t.total) + number(t.heading) + number(t.inclination))
    }
    lines.append(
      pad("mean") + number(result.mean.total) + number(result.mean.heading)
        + number(result.mean.inclination))
    return lines.joined(separator: "\n")
  }

  /// A small command-line front end, for `motionctl` and benchmark scripts:
  ///
  /// - `evaluate [--mode realtime9d|realtime6d|offline9d|offline6d] [--json] PATH...`
  /// - `throughput [--repetitions N] FILE` prints the real-time 9D samples per second.
  ///
  /// Returns the process exit status; output goes to standard output, errors to standard error.
  public static func runCommandLine(_ arguments: [String]) -> Int32 {
    var rest = arguments
    guard let command = rest.first else {
      printError("usage: evaluate [--mode MODE] [--json] PATH... | throughput [--repetitions N] FILE")
      return 2
    }
    rest.removeFirst()
    var mode = EvaluationMode.realtime9d
    var asJSON = false
    var repetitions = 5
    var paths: [String] = []
    var index = 0
    while index < rest.count {
      let argument = rest[index]
      switch argument {
      case "--json": asJSON = true
      case "--mode":
        index += 1
        guard index < rest.count, let value = EvaluationMode(rawValue: rest[index]) else {
          printError("--mode needs one of \(EvaluationMode.allCases.map(\.rawValue).joined(separator: ", "))")
          return 2
        }
        mode = value
      case "--repetitions":
        index += 1
        guard index < rest.count, let value = Int(rest[index]), value > 0 else {
          printError("--repetitions needs a positive integer")
          return 2
        }
        repetitions = value
      default: paths.append(argument)
      }
      index += 1
    }
    do {
      switch command {
      case "evaluate":
        let result = try evaluate(paths: paths, mode: mode)
        print(asJSON ? try json(result) : table(result))
      case "throughput":
        guard let file = trialFiles(in: paths).first else { throw Failure.noTrials(paths) }
        let trial = try EvaluationTrial.load(path: file)
        let rate = throughput(trial, repetitions: repetitions)
        print(asJSON ? "{\"samplesPerSecond\":\(rate)}" : String(format: "%.0f samples/s", rate))
      default:
        printError("unknown command \(command)")
        return 2
      }
    } catch {
      printError("\(error)")
      return 1
    }
    return 0
  }

  private static func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
  }
}
