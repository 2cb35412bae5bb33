// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

#if PhoneStreams
  import PhoneStreams
#endif

/// Which sensor source a process uses, as written in the `COREMOTION_SOURCE` environment variable
/// or on a command line. An addition to Apple's API.
///
/// Accepted forms (the ``description`` writes them back the same way):
///
/// | text | meaning |
/// |---|---|
/// | unset, empty, `auto` | real hardware when a backend finds some, otherwise no sensors |
/// | `none` | no sensors at all: every `is…Available` is `false` |
/// | `simulator` | the simulator's default scenario (`tour`), in real time |
/// | `simulator:SCENARIO` | a built-in scenario by name, or a scenario JSON file (`….json`) |
/// | `replay:PATH` | a recording (any detected format, or a shared `t,ax,ay,az[,pressure_hpa]` table in m/s² or in g with Apple's sign), in real time on the recording's clock |
/// | `replay:PATH?speed=N` | N times faster than recorded (0.01 ≤ N ≤ 1000, e.g. `0.5`, `4`) |
/// | `replay:PATH?speed=max` | as fast as the consumers take samples |
/// | `iio` | Linux Industrial I/O sensors (every motion sensor the backend finds) |
/// | `sensorlogger:PORT`, `sensorserver:ws://PHONE:PORT`, `phyphox:http://PHONE:PORT` | a phone streaming its sensors (`PhoneStreamSpecification` has every form and option); only with the package's `PhoneStreams` trait (on by default), otherwise an `.unavailable` error |
/// | `daemon`, `daemon:SOCKET` | the motion daemon `motiond` (default socket `$XDG_RUNTIME_DIR/opencoremotion/motiond.sock`) |
///
/// When `COREMOTION_SOURCE` is unset and the daemon's socket exists, apps use the daemon.
///
/// `?speed=` is also accepted after `simulator` and `simulator:SCENARIO`.
public enum SourceSpecification: Equatable, Sendable, CustomStringConvertible {
  /// Real hardware if any is found, otherwise no sensors.
  case automatic
  /// No sensors.
  case none
  /// The simulator, with a scenario name (`nil` = default scenario).
  case simulator(scenario: String?, speed: PlaybackSpeed = .realTime)
  /// A recording file.
  case replay(path: String, speed: PlaybackSpeed = .realTime)
  /// Linux IIO hardware.
  case iio
  #if PhoneStreams
    /// A phone streaming to this machine (Sensor Logger, SensorServer, phyphox). Only with the
    /// package's `PhoneStreams` trait (on by default), which brings SwiftNIO into the build.
    case phoneStream(PhoneStreamSpecification)
  #endif
  /// The motion daemon, at its default socket (`nil`) or at a given socket path.
  case daemon(socketPath: String?)

  /// How fast a simulation or recording plays.
  public enum PlaybackSpeed: Hashable, Sendable, CustomStringConvertible {
    /// `factor` times real time (1 = real time).
    case multiplier(Double)
    /// As fast as the consumers take samples.
    case asFastAsPossible

    /// Real time.
    public static let realTime = PlaybackSpeed.multiplier(1)

    /// The multipliers accepted: a hundredth of real time (a minute plays in 100 minutes) to a
    /// thousand times (an hour in 3.6 s; faster is what `max` is for). Anything slower freezes
    /// the source: at 1e-308 a one-minute recording would play for longer than the universe has
    /// existed, and looked like a hang.
    public static let multiplierRange: ClosedRange<Double> = 0.01...1000

    public var description: String {
      switch self {
      case .multiplier(let factor): return Self.format(factor)
      case .asFastAsPossible: return "max"
      }
    }

    private static func format(_ value: Double) -> String {
      value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
  }

  /// The name of the environment variable read by `CMMotionManager()`.
  public static let environmentVariable = "COREMOTION_SOURCE"

  /// Parses a specification; see the type's table for the accepted forms.
  ///
  /// - Throws: ``SourceSpecificationError`` naming what is wrong and listing the accepted forms.
  public init(parsing text: String) throws {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    #if PhoneStreams
      if PhoneStreamSpecification.isPhoneStream(trimmed) {
        do {
          self = .phoneStream(try PhoneStreamSpecification(parsing: trimmed))
        } catch let error as PhoneStreamSpecification.ParseError {
          throw Self.error(text, error.reason)
        }
        return
      }
    #else
      // Recognised, so that the message says what to change instead of "unknown source kind".
      if Self.phoneStreamSchemes.contains(Self.split(trimmed).kind) {
        throw SourceSpecificationError(
          text: text, problem: Self.phoneStreamsNotBuiltIn, kind: .unavailable)
      }
    #endif
    let (kind, argument) = Self.split(trimmed)
    switch kind {
    case "", "auto":
      guard argument == nil else { throw Self.error(text, "`\(kind)` takes no argument") }
      self = .automatic
    case "none":
      guard argument == nil else { throw Self.error(text, "`none` takes no argument") }
      self = .none
    case "simulator":
      let (name, speed) = try Self.splitSpeed(argument ?? "", in: text)
      if argument != nil, name.isEmpty, speed == nil {
        throw Self.error(text, "the scenario name after `simulator:` is empty")
      }
      self = .simulator(scenario: name.isEmpty ? nil : name, speed: speed ?? .realTime)
    case "replay":
      let (path, speed) = try Self.splitSpeed(argument ?? "", in: text)
      guard !path.isEmpty else {
        throw Self.error(text, "`replay:` needs a file path, e.g. `replay:walk.csv`")
      }
      self = .replay(path: path, speed: speed ?? .realTime)
    case "iio":
      // The backend picks and combines the devices itself (see LinuxIIO's configuration).
      guard argument == nil else { throw Self.error(text, "`iio` takes no argument") }
      self = .iio
    case "daemon":
      if let argument, argument.isEmpty {
        throw Self.error(text, "the socket path after `daemon:` is empty")
      }
      self = .daemon(socketPath: argument)
    default:
      throw Self.error(text, "unknown source kind `\(kind)`")
    }
  }

  /// The specification in `environment[COREMOTION_SOURCE]`; ``automatic`` when it is unset.
  public static func fromEnvironment(
    _ environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> SourceSpecification {
    guard let text = environment[environmentVariable] else { return .automatic }
    do {
      return try SourceSpecification(parsing: text)
    } catch let error as SourceSpecificationError {
      throw SourceSpecificationError(
        text: text, problem: "\(environmentVariable): \(error.problem)", kind: error.kind)
    }
  }

  /// The text form, which ``init(parsing:)`` reads back to an equal value.
  /// ``description`` with secrets hidden (a phone stream's push token), for pages, logs and
  /// error messages; see `PhoneStreamSpecification.displayDescription`.
  public var displayDescription: String {
    #if PhoneStreams
      if case .phoneStream(let phone) = self { return phone.displayDescription }
    #endif
    return description
  }

  public var description: String {
    switch self {
    case .automatic:
      return "auto"
    case .none:
      return "none"
    case .simulator(let scenario, let speed):
      return "simulator" + (scenario.map { ":" + $0 } ?? "") + Self.speedSuffix(speed)
    case .replay(let path, let speed):
      return "replay:" + path + Self.speedSuffix(speed)
    case .iio:
      return "iio"
    #if PhoneStreams
      case .phoneStream(let phone):
        return phone.description
    #endif
    case .daemon(let socketPath):
      return "daemon" + (socketPath.map { ":" + $0 } ?? "")
    }
  }

  /// The schemes of the phone-stream forms (`PhoneStreamSpecification.schemes`, which a test keeps
  /// equal), known here also when the `PhoneStreams` trait, and so that module, is not built.
  static let phoneStreamSchemes = ["sensorlogger", "sensorserver", "phyphox"]

  /// Why a phone-stream form fails when the package was built without the `PhoneStreams` trait.
  static let phoneStreamsNotBuiltIn =
    "phone streams were not built in: enable the PhoneStreams trait of the OpenCoreMotion package "
    + "(on by default; an app that set `traits: []` turned it off)"

  // MARK: Parsing helpers

  private static func speedSuffix(_ speed: PlaybackSpeed) -> String {
    speed == .realTime ? "" : "?speed=\(speed)"
  }

  /// `kind[:argument]` or `kind?query`; the argument may itself contain colons (paths). A query
  /// straight after the kind stays in the argument (`simulator?speed=2` → `?speed=2`).
  private static func split(_ text: String) -> (kind: String, argument: String?) {
    guard let mark = text.firstIndex(where: { $0 == ":" || $0 == "?" }) else {
      return (text.lowercased(), nil)
    }
    let kind = String(text[..<mark]).lowercased()
    if text[mark] == "?" { return (kind, String(text[mark...])) }
    return (kind, String(text[text.index(after: mark)...]))
  }

  /// Splits a trailing `?speed=…` off `argument`.
  private static func splitSpeed(
    _ argument: String, in text: String
  ) throws -> (String, PlaybackSpeed?) {
    guard let mark = argument.range(of: "?", options: .backwards) else { return (argument, nil) }
    let query = argument[mark.upperBound...]
    let base = String(argument[..<mark.lowerBound])
    guard query.hasPrefix("speed=") else {
      throw error(text, "unknown option `\(query)`; the only option is `?speed=N` or `?speed=max`")
    }
    let value = query.dropFirst("speed=".count)
    if value.lowercased() == "max" { return (base, .asFastAsPossible) }
    guard let factor = Double(value), factor.isFinite, factor > 0 else {
      throw error(text, "speed `\(value)` is not a positive number or `max`")
    }
    guard PlaybackSpeed.multiplierRange.contains(factor) else {
      throw error(text, "speed `\(value)` is outside \(Self.multiplierRangeText)")
    }
    return (base, .multiplier(factor))
  }

  /// The accepted multipliers, for messages.
  static let multiplierRangeText =
    String(
      format: "%g–%g", PlaybackSpeed.multiplierRange.lowerBound,
      PlaybackSpeed.multiplierRange.upperBound)
    + " (times real time; `max` plays as fast as the consumers take samples)"

  private static func error(_ text: String, _ problem: String) -> SourceSpecificationError {
    SourceSpecificationError(text: text, problem: problem)
  }
}

/// A source specification that could not be parsed or opened, with a message for people.
public struct SourceSpecificationError: Error, Equatable, Sendable, CustomStringConvertible,
  LocalizedError
{
  /// Whether the text was malformed or the source it names could not be opened.
  public enum Kind: Sendable, Equatable {
    /// The text is not a valid specification (the message lists the accepted forms).
    case invalid
    /// The specification is valid but its scenario, file or device cannot be opened.
    case unavailable
  }

  /// The text that was given.
  public var text: String
  /// What is wrong with it.
  public var problem: String
  /// Malformed or unavailable.
  public var kind: Kind

  public init(text: String, problem: String, kind: Kind = .invalid) {
    self.text = text
    self.problem = problem
    self.kind = kind
  }

  /// The accepted forms, for messages.
  public static let acceptedForms =
    "none, auto, simulator, simulator:SCENARIO, replay:PATH, replay:PATH?speed=N, "
    + "replay:PATH?speed=max, iio, sensorlogger:PORT, sensorserver:ws://PHONE:PORT, "
    + "phyphox:http://PHONE:PORT, daemon, daemon:SOCKET"

  public var description: String {
    switch kind {
    case .invalid:
      return "invalid sensor source \"\(text)\": \(problem) (accepted: \(Self.acceptedForms))"
    case .unavailable:
      return "cannot open sensor source \"\(text)\": \(problem)"
    }
  }

  public var errorDescription: String? { description }
}
