// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A scripted motion for the sensor simulator: timed segments plus the sample rate, duration,
/// seed, magnetic field and sensor noise, written as data (JSON) so that users can add their own.
///
/// Minimal JSON (every omitted member takes the default restated on its property):
///
///     {"name": "lift", "segments": [{"type": "rest", "duration": 2},
///       {"type": "moveTo", "attitude": "portrait"}, {"type": "rest", "duration": 2}]}
public struct Scenario: Sendable, Equatable, Codable {
  /// A short name, used in the stream's descriptor (`simulator:<name>`).
  public var name: String
  /// Sample rate in Hz (default 100).
  public var sampleRate: Double
  /// Length in seconds; `nil` (default) means the total length of the segments. A longer duration
  /// either repeats the segments (when ``repeats`` is set) or rests after the last one.
  public var duration: Double?
  /// Seed of the noise generator (default 1); ``SimulatedSensorStream`` may override it.
  public var seed: UInt64
  /// The attitude at time zero (default face up, top edge north).
  public var initialAttitude: DeviceAttitude
  /// Altitude above sea level in metres at the origin, for the barometer (default 0).
  public var altitude: Double
  /// Ambient temperature in °C, or `nil` for no thermometer (default 25).
  public var temperature: Double?
  /// The Earth's field (default 50 µT, 60° dip).
  public var magneticField: MagneticFieldModel
  /// The sensors' errors (default ``SimulatorNoise/phone``).
  public var noise: SimulatorNoise
  /// Whether the segments repeat to fill a longer ``duration`` (default false).
  public var repeats: Bool
  /// The motion, in order.
  public var segments: [ScenarioSegment]

  /// Creates a scenario.
  public init(
    name: String, segments: [ScenarioSegment], sampleRate: Double = 100, duration: Double? = nil,
    seed: UInt64 = 1, initialAttitude: DeviceAttitude = .orientation(.faceUp), altitude: Double = 0,
    temperature: Double? = 25, magneticField: MagneticFieldModel = MagneticFieldModel(),
    noise: SimulatorNoise = .phone, repeats: Bool = false
  ) {
    self.name = name
    self.segments = segments
    self.sampleRate = sampleRate
    self.duration = duration
    self.seed = seed
    self.initialAttitude = initialAttitude
    self.altitude = altitude
    self.temperature = temperature
    self.magneticField = magneticField
    self.noise = noise
    self.repeats = repeats
  }

  /// The total length in seconds of one pass through the segments.
  public var segmentsDuration: Double { segments.reduce(0) { $0 + $1.duration } }

  /// The length in seconds the stream runs for: ``duration`` or, when `nil`, the segments' total.
  public var effectiveDuration: Double { duration ?? segmentsDuration }

  /// Checks that the numbers make sense (positive rate, non-negative finite durations, …).
  ///
  /// - Throws: ``ScenarioError/invalid(_:)`` naming the first problem.
  public func validate() throws {
    func fail(_ message: String) -> ScenarioError { .invalid("scenario '\(name)': \(message)") }
    guard sampleRate.isFinite, sampleRate > 0, sampleRate <= 100_000 else {
      throw fail("sampleRate must be in (0, 100000] Hz, got \(sampleRate)")
    }
    if let duration, !(duration.isFinite && duration >= 0) {
      throw fail("duration must be a finite number of seconds ≥ 0, got \(duration)")
    }
    guard effectiveDuration.isFinite, effectiveDuration > 0 else {
      throw fail("the scenario has no length: give segments or a duration")
    }
    guard altitude.isFinite, altitude > -500, altitude < 11_000 else {
      throw fail("altitude must be between −500 and 11000 m (the troposphere), got \(altitude)")
    }
    if repeats, segmentsDuration <= 0 {
      throw fail("a repeating scenario needs segments with a positive total duration")
    }
    for (index, segment) in segments.enumerated() {
      guard segment.duration.isFinite, segment.duration >= 0 else {
        throw fail("segment \(index) (\(segment.typeName)) has an invalid duration \(segment.duration)")
      }
      switch segment {
      case .shake(_, _, let frequency, _) where !(frequency > 0):
        throw fail("segment \(index) (shake) needs a positive frequency")
      case .walk(let cadence, _, _) where !(cadence > 0):
        throw fail("segment \(index) (walk) needs a positive cadence")
      case .tap(_, _, let pulse, let duration) where !(pulse > 0 && duration >= 5 * pulse):
        throw fail("segment \(index) (tap) needs pulseDuration > 0 and duration ≥ 5 × pulseDuration")
      case .figure8(let period, _) where !(period > 0):
        throw fail("segment \(index) (figure8) needs a positive period")
      case .freeFall(let drop, let catchDuration, let duration)
      where !(drop >= 0 && catchDuration > 0 && duration >= drop + catchDuration):
        throw fail("segment \(index) (freeFall) needs dropDuration ≥ 0, catchDuration > 0 and duration ≥ their sum")
      case .drive(let speed, _, _, _, let turns) where !(speed >= 0 && turns.allSatisfy { $0.duration > 0 }):
        throw fail("segment \(index) (drive) needs speed ≥ 0 and turns with positive durations")
      default:
        break
      }
    }
  }

  /// Reads a scenario from a JSON file and validates it.
  ///
  /// - Throws: the decoder's error (with the JSON path) or ``ScenarioError/invalid(_:)``.
  public static func load(contentsOf url: URL) throws -> Scenario {
    let data = try Data(contentsOf: url)
    let scenario: Scenario
    do {
      scenario = try JSONDecoder().decode(Scenario.self, from: data)
    } catch let error as DecodingError {
      throw ScenarioError.malformed(url.lastPathComponent, Self.describe(error))
    }
    try scenario.validate()
    return scenario
  }

  /// The scenario as pretty-printed JSON that ``load(contentsOf:)`` reads back.
  public func jsonData() throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return try encoder.encode(self)
  }

  private static func describe(_ error: DecodingError) -> String {
    func path(_ context: DecodingError.Context) -> String {
      let text = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
      return text.isEmpty ? "top level" : text
    }
    switch error {
    case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
    case .keyNotFound(let key, let context): return "\(path(context)): missing '\(key.stringValue)'"
    case .typeMismatch(_, let context), .valueNotFound(_, let context):
      return "\(path(context)): \(context.debugDescription)"
    @unknown default: return "\(error)"
    }
  }

  private enum CodingKeys: String, CodingKey {
    case name, sampleRate, duration, seed, initialAttitude, altitude, temperature, magneticField
    case noise, repeats, segments
  }

  public init(from decoder: Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    name = try c.decodeIfPresent(String.self, forKey: .name) ?? "custom"
    sampleRate = try c.decodeIfPresent(Double.self, forKey: .sampleRate) ?? 100
    duration = try c.decodeIfPresent(Double.self, forKey: .duration)
    seed = try c.decodeIfPresent(UInt64.self, forKey: .seed) ?? 1
    initialAttitude = try c.decodeIfPresent(DeviceAttitude.self, forKey: .initialAttitude) ?? .orientation(.faceUp)
    altitude = try c.decodeIfPresent(Double.self, forKey: .altitude) ?? 0
    // An explicit null turns the thermometer off; omission keeps the default 25 °C.
    if c.contains(.temperature) {
      temperature = try c.decodeIfPresent(Double.self, forKey: .temperature)
    } else {
      temperature = 25
    }
    magneticField = try c.decodeIfPresent(MagneticFieldModel.self, forKey: .magneticField) ?? MagneticFieldModel()
    noise = try c.decodeIfPresent(SimulatorNoise.self, forKey: .noise) ?? .phone
    repeats = try c.decodeIfPresent(Bool.self, forKey: .repeats) ?? false
    segments = try c.decodeIfPresent([ScenarioSegment].self, forKey: .segments) ?? []
  }

  public func encode(to encoder: Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(name, forKey: .name)
    try c.encode(sampleRate, forKey: .sampleRate)
    try c.encodeIfPresent(duration, forKey: .duration)
    try c.encode(seed, forKey: .seed)
    try c.encode(initialAttitude, forKey: .initialAttitude)
    try c.encode(altitude, forKey: .altitude)
    if let temperature { try c.encode(temperature, forKey: .temperature) } else { try c.encodeNil(forKey: .temperature) }
    try c.encode(magneticField, forKey: .magneticField)
    try c.encode(noise, forKey: .noise)
    try c.encode(repeats, forKey: .repeats)
    try c.encode(segments, forKey: .segments)
  }
}

/// Why a scenario could not be found, read or used.
public enum ScenarioError: Error, Sendable, Equatable, CustomStringConvertible {
  /// No built-in scenario has this name; `validNames` lists those that exist.
  case unknownName(String, validNames: [String])
  /// The JSON could not be decoded (file name, reason with its JSON path).
  case malformed(String, String)
  /// The scenario's values are out of range.
  case invalid(String)

  public var description: String {
    switch self {
    case .unknownName(let name, let valid):
      return "Unknown scenario '\(name)'. Valid names: \(valid.joined(separator: ", "))"
    case .malformed(let file, let reason):
      return "Cannot read scenario \(file): \(reason)"
    case .invalid(let message):
      return "Invalid \(message)"
    }
  }
}

extension ScenarioError: LocalizedError {
  public var errorDescription: String? { description }
}
