// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import MotionSensors

/// `motionctl simulate SCENARIO OUT`: writes a simulated recording, ground truth included.
struct SimulateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "simulate",
    abstract:
      "Write a simulated recording (with ground-truth columns) in OpenCoreMotion's CSV format.",
    discussion: "SCENARIO is a built-in name (see --list) or the path of a scenario JSON file.")

  @Argument(help: "A built-in scenario name or a scenario JSON file.")
  var scenario: String?

  @Argument(help: "The CSV file to write.")
  var output: String?

  @Option(help: "Seed of the sensor noise (default: the scenario's).")
  var seed: UInt64?

  @Option(help: "Sample rate in Hz (default: the scenario's, usually 100).")
  var rate: Double?

  @Option(help: "Length in seconds (default: the scenario's).")
  var duration: Double?

  @Flag(help: "Leave out the ground-truth columns.")
  var noGroundTruth = false

  @Flag(help: "List the built-in scenarios and exit.")
  var list = false

  func validate() throws {
    if list { return }
    guard scenario != nil, output != nil else {
      throw ValidationError("give a SCENARIO and an output file, or --list")
    }
    if let rate, !(rate.isFinite && rate > 0) {
      throw ValidationError("--rate must be a positive number of Hz")
    }
    if let duration, !(duration.isFinite && duration > 0) {
      throw ValidationError("--duration must be a positive number of seconds")
    }
  }

  func run() throws {
    if list {
      for name in Scenario.builtInNames { print(name) }
      return
    }
    var scenario = try loadScenario(self.scenario!)
    if let rate { scenario.sampleRate = rate }
    if let duration { scenario.duration = duration }
    try scenario.validate()
    var stream = SimulatedSensorStream(scenario: scenario, seed: seed)
    // A scenario given as a JSON file is an input too.
    if let refusal = OutputPath.refusal(for: output!, inputs: [self.scenario!]) {
      throw CLIError("cannot write \(output!): \(refusal)")
    }
    let url = URL(fileURLWithPath: output!)
    let writer = try RecordingWriter(
      url: url, descriptor: stream.descriptor, includeGroundTruth: !noGroundTruth)
    do {
      let count = try writer.writeAll(from: &stream)
      try writer.finish()
      FileHandle.standardError.write(
        Data("wrote \(count) samples of \(stream.descriptor.name) to \(url.path)\n".utf8))
    } catch {
      writer.cancel()
      throw error
    }
  }
}

/// A built-in scenario by name, or a scenario JSON file when the argument names an existing file.
func loadScenario(_ nameOrPath: String) throws -> Scenario {
  if nameOrPath.hasSuffix(".json") || FileManager.default.fileExists(atPath: nameOrPath) {
    return try Scenario.load(contentsOf: URL(fileURLWithPath: nameOrPath))
  }
  return try Scenario.named(nameOrPath)
}
