// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import OpenCoreMotion
import SourceComposition

/// What the example programs share: `--duration SECONDS` parsing and a main loop that runs until
/// that much sensor time has passed or the source has no more samples.
///
/// The examples are command-line ports of iOS sample apps. On iOS the app's run loop never ends;
/// here the main run loop is run (so handlers on `OperationQueue.main` and observers on `.main`
/// fire, as in an app) until the stop condition is met.
public enum ExampleRunner {
  /// The parsed command line.
  public struct Options: Sendable {
    /// Seconds of sensor time to run, or `nil` to run until the source ends (or forever for live
    /// hardware).
    public var duration: Double?

    /// Parses `--duration SECONDS` (also `--duration=SECONDS`); `--help` prints `usage` and exits.
    public init(arguments: [String] = CommandLine.arguments, usage: String) {
      var iterator = arguments.dropFirst().makeIterator()
      while let argument = iterator.next() {
        if argument == "--help" || argument == "-h" {
          print(usage)
          print(
            "\nOptions:\n  --duration SECONDS   stop after this much sensor time (default: end of source)"
          )
          print(
            "Environment:\n  COREMOTION_SOURCE    auto, simulator[:SCENARIO], replay:FILE, iio, daemon, none, a phone stream (see motionctl --help)"
          )
          exit(0)
        }
        var value: String?
        if argument == "--duration" {
          value = iterator.next()
        } else if argument.hasPrefix("--duration=") {
          value = String(argument.dropFirst("--duration=".count))
        } else {
          ExampleRunner.fail("unknown argument \(argument); try --help")
        }
        guard let text = value, let seconds = Double(text), seconds > 0, seconds.isFinite else {
          ExampleRunner.fail("--duration needs a positive number of seconds")
        }
        duration = seconds
      }
    }
  }

  /// Prints `message` on standard error and exits with status 2.
  public static func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    exit(2)
  }

  /// Runs an example's screen from start to finish, as an app would show it.
  ///
  /// Parses the command line (``Options``; `--help` prints `usage` and exits) before
  /// `makeController` runs, then exits with `unavailableMessage` (see ``fail(_:)``) unless the
  /// controller's source offers what it needs (`isAvailable`). Otherwise calls `viewDidLoad()`,
  /// runs until `--duration` seconds of sensor time have passed or the source has finished (see
  /// ``run(source:duration:)``), and calls `viewDidDisappear()`.
  public static func show<Controller: ExampleViewController>(
    _ makeController: @autoclosure () -> Controller, usage: String,
    requiring isAvailable: (Controller) -> Bool, ifUnavailable unavailableMessage: String
  ) {
    let options = Options(usage: usage)
    let controller = makeController()
    guard isAvailable(controller) else { fail(unavailableMessage) }
    controller.viewDidLoad()
    run(duration: options.duration)
    controller.viewDidDisappear()
  }

  /// Runs the main run loop until `duration` seconds of `source`'s clock have passed (counted from
  /// its first sample) or the source has finished, then returns.
  public static func run(source: any SensorSource = SourceFactory.defaultSource, duration: Double?)
  {
    let state = RunState()
    let subscription = source.subscribe(requestedSampleRate: source.supportedSampleRates.lowerBound)
    { event in
      switch event {
      case .sample(let sample):
        state.observe(sample.timestamp, duration: duration)
      case .failure(let failure):
        FileHandle.standardError.write(Data("source failure: \(failure)\n".utf8))
      case .finished:
        state.finish()
      }
    }
    while !state.isDone {
      _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.02))
    }
    subscription.cancel()
    // Let handlers already queued for the last samples run, as an app would before quitting.
    let drainEnd = Date(timeIntervalSinceNow: 0.2)
    while Date() < drainEnd {
      _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.02))
    }
  }

  /// Formats a number with a fixed number of decimals and a sign, for aligned columns.
  public static func format(_ value: Double, decimals: Int = 2, width: Int = 6) -> String {
    let text = String(format: "%+.\(decimals)f", value)
    return String(repeating: " ", count: Swift.max(0, width - text.count)) + text
  }

  /// A horizontal bar for `value` in `-range...range`, centred, `width` characters wide.
  public static func bar(_ value: Double, range: Double, width: Int = 21) -> String {
    let half = width / 2
    let filled = Int((Swift.min(1, Swift.abs(value) / range) * Double(half)).rounded())
    var cells = [Character](repeating: "·", count: width)
    cells[half] = "|"
    for i in 0..<filled {
      cells[value < 0 ? half - 1 - i : half + 1 + i] = "#"
    }
    return String(cells)
  }
}

/// The stop condition, shared between the source's delivery thread and the main thread.
/// `@unchecked Sendable`: `firstTimestamp` and `done` are only touched with `lock` held.
private final class RunState: @unchecked Sendable {
  private let lock = NSLock()
  private var firstTimestamp: Double?
  private var done = false

  var isDone: Bool {
    lock.lock()
    defer { lock.unlock() }
    return done
  }

  func observe(_ timestamp: Double, duration: Double?) {
    lock.lock()
    defer { lock.unlock() }
    let first = firstTimestamp ?? timestamp
    firstTimestamp = first
    if let duration, timestamp - first >= duration { done = true }
  }

  func finish() {
    lock.lock()
    done = true
    lock.unlock()
  }
}
