// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import MotionSensors
import OpenCoreMotion
import SourceComposition

/// `motionctl record --source SPEC --duration S OUT`: records raw samples from any source.
struct RecordCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "record",
    abstract: "Record raw sensor samples from a source into OpenCoreMotion's CSV format.",
    discussion: """
      SPEC takes the forms of COREMOTION_SOURCE (simulator:SCENARIO, replay:PATH[?speed=N|max], \
      iio, …); the default is COREMOTION_SOURCE. The duration counts on the source's clock. The file \
      (mode 0600) appears when recording ends: after the duration, at the end of the source, at \
      SIGINT/SIGTERM, or at a fatal source failure (what was recorded is kept; the exit status is \
      then non-zero). Advisory failures are printed and counted.
      """)

  @Option(help: "The source, as in COREMOTION_SOURCE.")
  var source: String?

  @Option(help: "How many seconds to record (source clock).")
  var duration: Double

  @Argument(help: "The CSV file to write.")
  var output: String

  @Flag(help: "Also write ground-truth columns when the source has them (simulator).")
  var groundTruth = false

  func validate() throws {
    guard duration.isFinite, duration > 0 else {
      throw ValidationError("--duration must be a positive number of seconds")
    }
  }

  func run() throws {
    let specification =
      try source.map { try SourceSpecification(parsing: $0) }
      ?? SourceSpecification.fromEnvironment()
    var inputs: [String] = []
    if case .replay(let path, _) = specification {
      inputs.append((path as NSString).expandingTildeInPath)
    }
    if let refusal = OutputPath.refusal(for: output, inputs: inputs) {
      throw CLIError("cannot write \(output): \(refusal)")
    }
    let sensorSource = try SourceFactory.makeSource(specification)
    guard !sensorSource.availableSensors.isEmpty else {
      throw CLIError("\(sensorSource.name) has no sensors to record")
    }
    let descriptor = StreamDescriptor(
      name: sensorSource.name, sensors: sensorSource.availableSensors,
      nominalSampleRate: sensorSource.supportedSampleRates.upperBound, hasGroundTruth: groundTruth)
    let writer = try RecordingWriter(
      url: URL(fileURLWithPath: output), descriptor: descriptor, includeGroundTruth: groundTruth)

    struct Progress {
      var firstTimestamp: Double?
      var error: String?
      /// A fatal source failure: recording stops, but the samples so far are kept.
      var sourceFailure: String?
      var advisoryFailureCount = 0
      var isDone = false
    }
    let progress = Locked(Progress())
    let done = DispatchSemaphore(value: 0)
    let subscription = sensorSource.subscribe(
      requestedSampleRate: sensorSource.supportedSampleRates.upperBound
    ) { event in
      progress.withLock { p in
        guard !p.isDone else { return }
        switch event {
        case .sample(let sample):
          let start = p.firstTimestamp ?? sample.timestamp
          p.firstTimestamp = start
          guard sample.timestamp - start < duration else {
            p.isDone = true
            done.signal()
            return
          }
          do { try writer.append(sample) } catch {
            p.error = "\(error)"
            p.isDone = true
            done.signal()
          }
        case .failure(let failure) where !failure.isFatal:
          p.advisoryFailureCount += 1
          printToStandardError("warning: \(failure.message)")
        case .failure(let failure):
          p.sourceFailure = failure.message
          p.isDone = true
          done.signal()
        case .finished:
          p.isDone = true
          done.signal()
        }
      }
    }
    // SIGINT/SIGTERM end the recording like its duration does: the file is finished, not lost.
    let signals = TerminationSignals {
      progress.withLock { $0.isDone = true }
      done.signal()
    }
    defer { signals.cancel() }
    // A source that never delivers is an error, not a hang.
    while done.wait(timeout: .now() + 5) == .timedOut {
      if progress.withLock({ $0.firstTimestamp == nil }) {
        subscription.cancel()
        waitForDevicesToBeRestored()
        writer.cancel()
        throw CLIError("\(sensorSource.name) delivered no samples within 5 s")
      }
    }
    subscription.cancel()
    waitForDevicesToBeRestored()
    let outcome = progress.withLock { $0 }
    if let error = outcome.error {
      // The writer itself failed: what it has cannot be trusted to be complete.
      writer.cancel()
      throw CLIError(error)
    }
    // A source that ended without a sample (a replayed file with a header and no rows) is an
    // error, as for replay, steps and the others: a recording of nothing is not a success.
    if writer.sampleCount == 0, !signals.wasReceived, outcome.sourceFailure == nil {
      writer.cancel()
      throw CLIError("\(sensorSource.name) ended without delivering a sample; nothing was recorded")
    }
    try writer.finish()
    var summary = "recorded \(writer.sampleCount) samples from \(sensorSource.name) to \(output)"
    if outcome.advisoryFailureCount > 0 { summary += " (\(outcome.advisoryFailureCount) warnings)" }
    if signals.wasReceived { summary += " (stopped by a signal)" }
    printToStandardError(summary)
    if let failure = outcome.sourceFailure {
      throw CLIError(
        "\(failure) (the \(writer.sampleCount) samples before it are kept in \(output))")
    }
  }
}
