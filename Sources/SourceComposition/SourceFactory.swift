// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionSensors

#if PhoneStreams
  import PhoneStreams
#endif

/// Creates sensor sources from ``SourceSpecification``s and owns the process's default source.
/// An addition to Apple's API.
///
/// The concrete readers (simulator, recordings, IIO hardware, phone streams) live in other modules
/// and are reached through `DefaultSourceFactory`.
public enum SourceFactory {
  /// Creates a new source for `specification`.
  ///
  /// Simulations and recordings play through a `StreamPlayer` in real time, scaled by the
  /// specification's speed, on their own clock; `.automatic` gives a source with no sensors when no
  /// hardware is found.
  ///
  /// - Throws: ``SourceSpecificationError`` when the scenario, file or device cannot be opened
  ///   (also for `.automatic` when sensors exist but cannot be read), or `.invalid` when a speed
  ///   is outside ``SourceSpecification/PlaybackSpeed/multiplierRange``.
  public static func makeSource(_ specification: SourceSpecification) throws -> any SensorSource {
    // A specification built in code skips the parser's range check; a speed outside it would
    // freeze the source (1e-308) or mean nothing (0, NaN).
    switch specification {
    case .simulator(_, .multiplier(let factor)), .replay(_, .multiplier(let factor)):
      guard SourceSpecification.PlaybackSpeed.multiplierRange.contains(factor) else {
        throw SourceSpecificationError(
          text: specification.displayDescription,
          problem: "speed \(factor) is outside \(SourceSpecification.multiplierRangeText)")
      }
    default:
      break
    }
    switch specification {
    case .none:
      return EmptySensorSource()
    case .automatic:
      return try wrapping(specification) { try DefaultSourceFactory.discoverHardware() }
        ?? NoSensorsFound()
    case .iio:
      let found = try wrapping(specification) { try DefaultSourceFactory.discoverHardware() }
      guard let found else {
        throw SourceSpecificationError(
          text: specification.displayDescription, problem: "no IIO motion sensors were found",
          kind: .unavailable)
      }
      return found
    case .simulator(let scenario, let speed):
      let stream = try wrapping(specification) {
        try DefaultSourceFactory.simulatorStream(scenario: scenario)
      }
      return StreamPlayer(stream, pacing: pacing(speed), name: specification.description)
    #if PhoneStreams
      case .phoneStream(let phone):
        return phone.makeSource()
    #endif
    case .daemon(let socketPath):
      return try wrapping(specification) {
        try DefaultSourceFactory.daemonSource(socketPath: socketPath)
      }
    case .replay(let path, let speed):
      let url = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
      let stream = try wrapping(specification) {
        try DefaultSourceFactory.recordingStream(url: url)
      }
      return StreamPlayer(stream, pacing: pacing(speed), name: specification.description)
    }
  }

  /// The process's default source, made once from the `COREMOTION_SOURCE` environment variable and
  /// shared by every `CMMotionManager()`.
  ///
  /// An invalid value is reported once as an error through swift-log (label
  /// `OpenCoreMotion.SourceComposition`) and the process continues with no sensors, so that a typo
  /// cannot crash an app. Unset, the daemon is used when it answers at its socket within 0.5 s;
  /// when the socket exists and no daemon answers, a warning says why and this process reads the
  /// sensors itself.
  public static var defaultSource: any SensorSource {
    defaultSourceCache.withLock { cached in
      if let cached { return cached }
      let resolved = resolveDefaultSource(environment: ProcessInfo.processInfo.environment)
      if let message = resolved.message { logger.error("\(message)") }
      if let warning = resolved.warning { logger.warning("\(warning)") }
      let source = resolved.source
      cached = source
      return source
    }
  }

  private static let defaultSourceCache = Locked<(any SensorSource)?>(nil)

  /// Where the composition layer's diagnostics go; apps choose the destination with
  /// `LoggingSystem`.
  private static let logger = Logger(label: "OpenCoreMotion.SourceComposition")

  /// The source `environment` asks for, or no sensors and the reason (`message`) when it cannot
  /// be had. With `COREMOTION_SOURCE` unset: the daemon when it answers at its socket, else this
  /// process's own sources, and `warning` says why the daemon was not used when its socket exists
  /// (before, that fallback was silent: an app on a stopped or stuck daemon read the sensors
  /// itself, next to the daemon, and nothing said so).
  static func resolveDefaultSource(
    environment: [String: String]
  ) -> (source: any SensorSource, message: String?, warning: String?) {
    do {
      let specification = try SourceSpecification.fromEnvironment(environment)
      var warning: String?
      if environment[SourceSpecification.environmentVariable] == nil {
        let daemon = DefaultSourceFactory.runningDaemonSource(environment: environment)
        if let source = daemon.source { return (source, nil, nil) }
        if let whyNot = daemon.whyNot {
          warning =
            "not using the motion daemon (\(whyNot)); reading the sensors in this process "
            + "(\(SourceSpecification.environmentVariable)=daemon uses the daemon only)"
        }
      }
      return (try makeSource(specification), nil, warning)
    } catch {
      return (EmptySensorSource(), "\(error); continuing with no sensors", nil)
    }
  }

  private static func pacing(_ speed: SourceSpecification.PlaybackSpeed) -> Pacing {
    switch speed {
    case .multiplier(let factor): return .realTime(speed: factor)
    case .asFastAsPossible: return .asFastAsPossible
    }
  }

  /// Runs `body`, turning any error into an `.unavailable` ``SourceSpecificationError`` about
  /// `specification`.
  private static func wrapping<T>(
    _ specification: SourceSpecification, _ body: () throws -> T
  ) throws -> T {
    do {
      return try body()
    } catch let error as SourceSpecificationError {
      throw error
    } catch {
      throw SourceSpecificationError(
        text: specification.displayDescription, problem: "\(error)", kind: .unavailable)
    }
  }
}

/// What `auto` gives when no backend finds sensors: no sensors, as `none`, but named for what was
/// asked. As `EmptySensorSource` it was called "none", so `motionctl monitor --source auto` said
/// "none has no sensors" and an app's error "none has no accelerometer", naming a source nobody
/// chose.
final class NoSensorsFound: SensorSource {
  var name: String { "auto (no motion sensors found)" }
  var availableSensors: SensorSet { [] }
  var supportedSampleRates: ClosedRange<Double> { 1...100 }

  func subscribe(
    requestedSampleRate: Double, _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    SourceSubscription(onCancel: {})
  }
}
