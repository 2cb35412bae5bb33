// SPDX-License-Identifier: Apache-2.0

/// A scripted motion for the sensor simulator: timed segments plus the sample rate, duration,
/// seed, magnetic field and sensor noise, written as data (JSON) so that users can add their own.
///
/// Every member except `segments` may be omitted and then takes the default restated on its
/// property. A complete example:
///
///     {
///       "name": "desk-lift",
///       "sampleRate": 100,
///       "duration": 20,
///       "seed": 42,
///       "initialAttitude": "faceUp",
///       "altitude": 350,
///       "temperature": 22,
///       "magneticField": {"strength": 48, "dip": 65},
///       "noise": "phone",
///       "repeats": false,
///       "segments": [
///         {"type": "rest", "duration": 2},
///         {"type": "moveTo", "attitude": "portrait", "duration": 1.5},
///         {"type": "translate", "displacement": [0, 0, 1], "duration": 3},
///         {"type": "shake", "axis": [1, 0, 0], "amplitude": 0.03, "frequency": 4, "duration": 2},
///         {"type": "tap", "axis": [1, 0, 0], "peakAcceleration": 30}
///       ]
///     }
///
/// Attitudes are names (``DeviceOrientationName``), Euler angles in degrees or quaternions (see
/// ``DeviceAttitude``); `noise` is a preset name or an object (see ``SimulatorNoise``); segment
/// types and their parameters are listed on ``ScenarioSegment``.
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
  /// The attitude at time zero (default face up with +x north: the identity).
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
  /// Pressure changes not due to height: weather drift and door slams (default none).
  public var weather: PressureWeather

  /// Creates a scenario.
  public init(
    name: String, segments: [ScenarioSegment], sampleRate: Double = 100, duration: Double? = nil,
    seed: UInt64 = 1, initialAttitude: DeviceAttitude = .orientation(.faceUp), altitude: Double = 0,
    temperature: Double? = 25, magneticField: MagneticFieldModel = MagneticFieldModel(),
    noise: SimulatorNoise = .phone, repeats: Bool = false, weather: PressureWeather = .calm
  ) {
    self.weather = weather
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

  /// The longest scenario accepted, in seconds (one day): repeated segments are laid out in memory.
  public static let maximumDuration = 86_400.0

  /// The most segments a scenario lays out, its repetitions included (one hundred thousand): the
  /// layout holds every one in memory, so a repeating scenario of 1 ms segments over a day is
  /// refused rather than laid out 86 million times.
  public static let maximumSegmentCount = 100_000

  /// The most weather transients a scenario has (each is evaluated at every sample).
  public static let maximumTransientCount = 1000

  /// The length in seconds the stream runs for: ``duration`` or, when `nil`, the segments' total.
  public var effectiveDuration: Double { duration ?? segmentsDuration }

  /// Checks that the numbers make sense (positive rate, non-negative finite durations, …) and
  /// that every segment's parameters lie in their physical ranges (listed on ``ScenarioSegment``),
  /// with at most ``maximumSegmentCount`` segments laid out.
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
    guard effectiveDuration <= Self.maximumDuration else {
      throw fail(
        "the scenario lasts \(effectiveDuration) s; the limit is \(Self.maximumDuration) s (one day)"
      )
    }
    guard magneticField.strength.isFinite, magneticField.strength >= 0, magneticField.dip.isFinite,
      Swift.abs(magneticField.dip) <= 90
    else {
      throw fail("magneticField needs a finite strength ≥ 0 µT and a dip within ±90°")
    }
    if let temperature, !temperature.isFinite {
      throw fail("temperature must be finite")
    }
    if let problem = noise.problem {
      throw fail("noise: \(problem)")
    }
    guard altitude.isFinite, altitude > -500, altitude < 11_000 else {
      throw fail("altitude must be between −500 and 11000 m (the troposphere), got \(altitude)")
    }
    guard weather.numericParameters.allSatisfy(\.isFinite),
      weather.transients.allSatisfy({ $0.duration >= 0 }),
      weather.transients.count <= Self.maximumTransientCount
    else {
      throw fail(
        "weather must have finite numbers and at most \(Self.maximumTransientCount) transients "
          + "with durations ≥ 0")
    }
    if repeats, segmentsDuration <= 0 {
      throw fail("a repeating scenario needs segments with a positive total duration")
    }
    for (index, segment) in segments.enumerated() {
      if let problem = segment.problem {
        throw fail("segment \(index) (\(segment.typeName)): \(problem)")
      }
    }
    // Checked after the segments, so that a pass's length is finite and positive here.
    let passes = repeats ? (effectiveDuration / segmentsDuration).rounded(.up) : 1
    guard passes * Double(segments.count) <= Double(Self.maximumSegmentCount) else {
      throw fail(
        "the scenario lays out \(segments.count) segment(s) \(passes) time(s); the limit is "
          + "\(Self.maximumSegmentCount) segments in all: use fewer, longer segments")
    }
  }
}
