// SPDX-License-Identifier: Apache-2.0

/// One timed piece of a ``Scenario``'s motion. Each segment starts where the previous one ended
/// (attitude and position) and starts and ends at rest, so segments chain in any order.
///
/// In JSON a segment is an object with a `type` and its parameters; omitted parameters take the
/// defaults restated below, for example `{"type": "rotate", "axis": [0, 0, 1], "rate": 30,
/// "duration": 10}` or `{"type": "moveTo", "attitude": "portrait", "duration": 1.5}`.
/// Directions (`axis`) are in the sensor frame unless stated; rates are in degrees per second.
///
/// Every parameter must lie in its physical range, checked by ``Scenario/validate()``
/// (and so by ``Scenario/load(contentsOf:)``) with an error naming the segment and the field.
///
/// | Parameter | Range |
/// |---|---|
/// | every `duration` | 0 … 86 400 s (``Scenario/maximumDuration``) |
/// | `rotate`: `rate`; `ramp` | ±4000 °/s (the widest gyroscope range); 0 < ramp ≤ duration / 2 |
/// | `translate`: `displacement` | ±10 000 m per axis |
/// | `shake`: `amplitude`; `frequency` | 0 … 1 m; 0 < f ≤ 50 Hz |
/// | `tap`: `peakAcceleration`; `pulseDuration` | ±2000 m/s² (200 g); 0 < pulse ≤ 1 s, duration ≥ 5 × pulse |
/// | `walk`, `gait`: `cadence`; `speed` | 0.5 … 5 steps/s (a shuffle to a sprint); 0 … 10 m/s |
/// | `gait`, `ride`: `climb` | ±1000 m |
/// | `cycle`: `cadence`; `speed` | 0.2 … 3 revolutions/s; 0 … 25 m/s |
/// | `drive`: `speed`; `vibration`; `ramp` | 0 … 100 m/s; 0 … 20 m/s²; 0 … 86 400 s |
/// | `drive` turns | at most 100; `start` within ±86 400 s, `angle` ±3600°, 0 < `duration` ≤ 86 400 s |
/// | `freeFall`: `dropDuration`; `catchDuration` | 0 … 10 s; 0 < catch ≤ 10 s, duration ≥ their sum |
/// | `figure8`: `period` | 0.5 … 120 s |
///
/// Every number must also be finite, and a scenario lays out at most
/// ``Scenario/maximumSegmentCount`` segments, its repetitions included. ``ScenarioTrajectory``
/// skips a segment outside these ranges (a scenario built in code need not be validated), so its
/// layout stays bounded whatever the values.
public enum ScenarioSegment: Sendable, Equatable, Codable {
  /// Lie still for `duration` seconds.
  case rest(duration: Double)
  /// Turn smoothly (quintic-eased slerp) to `attitude` over `duration` seconds (default 1.5 s).
  case moveTo(attitude: DeviceAttitude, duration: Double)
  /// Rotate about the sensor-frame `axis` at `rate` °/s for `duration` seconds, easing in and out
  /// over `ramp` seconds (default 0.5 s, more than 0 and at most half the duration); the steady
  /// rate lasts `duration − 2·ramp`.
  case rotate(axis: SIMD3<Double>, rate: Double, duration: Double, ramp: Double)
  /// Move by `displacement` metres (earth frame, NWU) over `duration` seconds, without rotating.
  case translate(displacement: SIMD3<Double>, duration: Double)
  /// Shake back and forth along the sensor-frame `axis` (default +x) with `amplitude` metres
  /// (default 0.03) at `frequency` Hz (default 4) for `duration` seconds (default 2), easing in
  /// and out over 0.25 s.
  case shake(axis: SIMD3<Double>, amplitude: Double, frequency: Double, duration: Double)
  /// A knock that pushes the device along the sensor-frame `axis` (default +x: a knock on the left
  /// edge): an acceleration spike of `peakAcceleration` m/s² (default 50, about 5 g: a real knock
  /// of a phone's edge on a palm gives 3–6 g) lasting `pulseDuration`
  /// seconds (default 0.03), a gentler slide to a stop, then rest until `duration` (default 1 s).
  case tap(axis: SIMD3<Double>, peakAcceleration: Double, pulseDuration: Double, duration: Double)
  /// Walk forward (the horizontal direction of the device's +y axis, or of −z when +y is nearly
  /// vertical) at `speed` m/s (default 1.3) with steps at `cadence` Hz (default 1.8), phone in
  /// hand, for `duration` seconds; starts and stops over 1 s.
  case walk(cadence: Double, speed: Double, duration: Double)
  /// Drive forward (as for walking) at up to `speed` m/s (default 12) for `duration` seconds with
  /// engine and road vibration of `vibration` m/s² (default 0.8) and the given turns; accelerates
  /// from and brakes to a stop over `ramp` seconds (default 4).
  case drive(speed: Double, duration: Double, vibration: Double, ramp: Double, turns: [DriveTurn])
  /// Fall freely for `dropDuration` seconds (default 0.5), be caught over `catchDuration` seconds
  /// (default 0.3), then rest until `duration` (default 2 s).
  case freeFall(dropDuration: Double, catchDuration: Double, duration: Double)
  /// Wave the device in a figure 8 while turning it through many attitudes (magnetometer
  /// calibration: yaw ±180°, pitch ±75°, roll ±150°, so the field is seen from every octant),
  /// `period` seconds per loop (default 6), for `duration` seconds (default 12); returns to the
  /// starting attitude.
  case figure8(period: Double, duration: Double)
  /// Walk or run with the phone in a hand, a pocket or a bag (see ``Gait``), climbing stairs when
  /// the gait's `climb` is nonzero, for `duration` seconds; starts and stops over 1 s. In JSON the
  /// ``Gait`` members sit beside `type` and `duration`.
  case gait(Gait, duration: Double)
  /// Stand still in a lift or on an escalator (``RideKind``) that moves `climb` metres up
  /// (negative: down) over `duration` seconds. The phone is held in the hand. In JSON
  /// `{"type": "ride", "vehicle": "lift", "climb": 9, "duration": 15}`.
  case ride(RideKind, climb: Double, duration: Double)
  /// Cycle at `speed` m/s (default 5) pedalling at `cadence` revolutions per second (default 1.2)
  /// with the phone in a front trouser pocket, for `duration` seconds; starts and stops over 2 s.
  case cycle(cadence: Double, speed: Double, duration: Double)

  /// The segment's length in seconds.
  public var duration: Double {
    switch self {
    case .rest(let d), .moveTo(_, let d), .rotate(_, _, let d, _), .translate(_, let d),
      .shake(_, _, _, let d), .tap(_, _, _, let d), .walk(_, _, let d), .drive(_, let d, _, _, _),
      .freeFall(_, _, let d), .figure8(_, let d), .gait(_, let d), .ride(_, _, let d),
      .cycle(_, _, let d):
      return d
    }
  }

  /// Every number in the segment, for validation.
  var numericParameters: [Double] {
    switch self {
    case .rest(let d): return [d]
    case .moveTo(let attitude, let d):
      let q = attitude.earthFromSensor
      return [d, q.w, q.x, q.y, q.z]
    case .rotate(let axis, let rate, let d, let ramp):
      return [axis.x, axis.y, axis.z, rate, d, ramp]
    case .translate(let v, let d): return [v.x, v.y, v.z, d]
    case .shake(let axis, let amplitude, let frequency, let d):
      return [axis.x, axis.y, axis.z, amplitude, frequency, d]
    case .tap(let axis, let peak, let pulse, let d):
      return [axis.x, axis.y, axis.z, peak, pulse, d]
    case .walk(let cadence, let speed, let d): return [cadence, speed, d]
    case .drive(let speed, let d, let vibration, let ramp, let turns):
      return [speed, d, vibration, ramp] + turns.flatMap { [$0.start, $0.angle, $0.duration] }
    case .freeFall(let drop, let catchDuration, let d): return [drop, catchDuration, d]
    case .figure8(let period, let d): return [period, d]
    case .gait(let gait, let d): return [gait.cadence, gait.speed, gait.climb, d]
    case .ride(_, let climb, let d): return [climb, d]
    case .cycle(let cadence, let speed, let d): return [cadence, speed, d]
    }
  }

  /// The segment's JSON `type`.
  public var typeName: String {
    switch self {
    case .rest: return "rest"
    case .moveTo: return "moveTo"
    case .rotate: return "rotate"
    case .translate: return "translate"
    case .shake: return "shake"
    case .tap: return "tap"
    case .walk: return "walk"
    case .drive: return "drive"
    case .freeFall: return "freeFall"
    case .figure8: return "figure8"
    case .gait: return "gait"
    case .ride: return "ride"
    case .cycle: return "cycle"
    }
  }

  /// Every segment `type` accepted in JSON.
  public static let typeNames = [
    "rest", "moveTo", "rotate", "translate", "shake", "tap", "walk", "drive", "freeFall", "figure8",
    "gait",
    "ride", "cycle",
  ]

  private enum CodingKeys: String, CodingKey {
    case type, duration, attitude, axis, rate, ramp, displacement, amplitude, frequency
    case peakAcceleration, pulseDuration, cadence, speed, vibration, turns, dropDuration
    case catchDuration, period, vehicle, climb
  }

  public init(from decoder: Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let type = try c.decode(String.self, forKey: .type)
    func value(_ key: CodingKeys, _ fallback: Double) throws -> Double {
      try c.decodeIfPresent(Double.self, forKey: key) ?? fallback
    }
    func vector(_ key: CodingKeys, _ fallback: SIMD3<Double>) throws -> SIMD3<Double> {
      try c.decodeIfPresent(SIMD3<Double>.self, forKey: key) ?? fallback
    }
    switch type {
    case "rest":
      self = .rest(duration: try value(.duration, 1))
    case "moveTo":
      self = .moveTo(
        attitude: try c.decode(DeviceAttitude.self, forKey: .attitude),
        duration: try value(.duration, 1.5))
    case "rotate":
      self = .rotate(
        axis: try vector(.axis, SIMD3(0, 0, 1)), rate: try value(.rate, 30),
        duration: try value(.duration, 10), ramp: try value(.ramp, 0.5))
    case "translate":
      self = .translate(
        displacement: try vector(.displacement, .zero), duration: try value(.duration, 2))
    case "shake":
      self = .shake(
        axis: try vector(.axis, SIMD3(1, 0, 0)), amplitude: try value(.amplitude, 0.03),
        frequency: try value(.frequency, 4), duration: try value(.duration, 2))
    case "tap":
      self = .tap(
        axis: try vector(.axis, SIMD3(1, 0, 0)), peakAcceleration: try value(.peakAcceleration, 50),
        pulseDuration: try value(.pulseDuration, 0.03), duration: try value(.duration, 1))
    case "walk":
      self = .walk(
        cadence: try value(.cadence, 1.8), speed: try value(.speed, 1.3),
        duration: try value(.duration, 10))
    case "drive":
      self = .drive(
        speed: try value(.speed, 12), duration: try value(.duration, 30),
        vibration: try value(.vibration, 0.8), ramp: try value(.ramp, 4),
        turns: try c.decodeIfPresent([DriveTurn].self, forKey: .turns) ?? [])
    case "freeFall":
      self = .freeFall(
        dropDuration: try value(.dropDuration, 0.5), catchDuration: try value(.catchDuration, 0.3),
        duration: try value(.duration, 2))
    case "figure8":
      self = .figure8(period: try value(.period, 6), duration: try value(.duration, 12))
    case "gait":
      self = .gait(try Gait(from: decoder), duration: try value(.duration, 10))
    case "ride":
      self = .ride(
        try c.decodeIfPresent(RideKind.self, forKey: .vehicle) ?? .lift,
        climb: try value(.climb, 9),
        duration: try value(.duration, 15))
    case "cycle":
      self = .cycle(
        cadence: try value(.cadence, 1.2), speed: try value(.speed, 5),
        duration: try value(.duration, 30))
    default:
      throw DecodingError.dataCorruptedError(
        forKey: .type, in: c,
        debugDescription: "Unknown segment type '\(type)'. Valid types: "
          + Self.typeNames.joined(separator: ", "))
    }
  }

  public func encode(to encoder: Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(typeName, forKey: .type)
    try c.encode(duration, forKey: .duration)
    switch self {
    case .rest:
      break
    case .moveTo(let attitude, _):
      try c.encode(attitude, forKey: .attitude)
    case .rotate(let axis, let rate, _, let ramp):
      try c.encode(axis, forKey: .axis)
      try c.encode(rate, forKey: .rate)
      try c.encode(ramp, forKey: .ramp)
    case .translate(let displacement, _):
      try c.encode(displacement, forKey: .displacement)
    case .shake(let axis, let amplitude, let frequency, _):
      try c.encode(axis, forKey: .axis)
      try c.encode(amplitude, forKey: .amplitude)
      try c.encode(frequency, forKey: .frequency)
    case .tap(let axis, let peak, let pulse, _):
      try c.encode(axis, forKey: .axis)
      try c.encode(peak, forKey: .peakAcceleration)
      try c.encode(pulse, forKey: .pulseDuration)
    case .walk(let cadence, let speed, _):
      try c.encode(cadence, forKey: .cadence)
      try c.encode(speed, forKey: .speed)
    case .drive(let speed, _, let vibration, let ramp, let turns):
      try c.encode(speed, forKey: .speed)
      try c.encode(vibration, forKey: .vibration)
      try c.encode(ramp, forKey: .ramp)
      try c.encode(turns, forKey: .turns)
    case .freeFall(let drop, let catchDuration, _):
      try c.encode(drop, forKey: .dropDuration)
      try c.encode(catchDuration, forKey: .catchDuration)
    case .figure8(let period, _):
      try c.encode(period, forKey: .period)
    case .gait(let gait, _):
      try gait.encode(to: encoder)
    case .ride(let vehicle, let climb, _):
      try c.encode(vehicle, forKey: .vehicle)
      try c.encode(climb, forKey: .climb)
    case .cycle(let cadence, let speed, _):
      try c.encode(cadence, forKey: .cadence)
      try c.encode(speed, forKey: .speed)
    }
  }
}
