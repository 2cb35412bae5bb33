// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Changes of the air pressure that do not come from the device's height: weather drifting over
/// the hours, and brief jumps when a door slams or ventilation starts. The simulated barometer
/// adds them to the standard atmosphere's pressure at the device's altitude.
///
/// In JSON: `"weather": {"trend": -0.1, "transients": [{"start": 30, "amplitude": 0.02,
/// "duration": 0.5}]}`.
public struct PressureWeather: Sendable, Equatable, Codable {
  /// A brief pressure excursion (a door slam, a gust of the ventilation): a raised-cosine pulse.
  public struct Transient: Sendable, Equatable, Codable {
    /// When it starts, s of scenario time.
    public var start: Double
    /// Peak change in kPa (a slammed door: about 0.01–0.03 kPa, i.e. 10–30 Pa).
    public var amplitude: Double
    /// How long it lasts, s (default 0.5).
    public var duration: Double

    public init(start: Double, amplitude: Double, duration: Double = 0.5) {
      self.start = start
      self.amplitude = amplitude
      self.duration = duration
    }

    private enum CodingKeys: String, CodingKey { case start, amplitude, duration }

    public init(from decoder: Decoder) throws {
      let c = try decoder.container(keyedBy: CodingKeys.self)
      start = try c.decode(Double.self, forKey: .start)
      amplitude = try c.decode(Double.self, forKey: .amplitude)
      duration = try c.decodeIfPresent(Double.self, forKey: .duration) ?? 0.5
    }
  }

  /// Steady pressure change in kPa per hour (default 0; a falling barometer before a storm is
  /// about −0.1 kPa/h, an extreme one −0.3).
  public var trend: Double
  /// Brief excursions, in any order.
  public var transients: [Transient]

  public init(trend: Double = 0, transients: [Transient] = []) {
    self.trend = trend
    self.transients = transients
  }

  /// No weather: the standard atmosphere only.
  public static let calm = PressureWeather()

  /// The pressure change in kPa at scenario time `time` seconds.
  public func pressureOffset(at time: Double) -> Double {
    var offset = trend * time / 3600
    for transient in transients where transient.duration > 0 {
      let u = (time - transient.start) / transient.duration
      if u > 0, u < 1 {
        offset += transient.amplitude * 0.5 * (1 - Double.cos(2 * .pi * u))
      }
    }
    return offset
  }

  /// Every number, for validation.
  var numericParameters: [Double] {
    [trend] + transients.flatMap { [$0.start, $0.amplitude, $0.duration] }
  }

  private enum CodingKeys: String, CodingKey { case trend, transients }

  public init(from decoder: Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    trend = try c.decodeIfPresent(Double.self, forKey: .trend) ?? 0
    transients = try c.decodeIfPresent([Transient].self, forKey: .transients) ?? []
  }
}
