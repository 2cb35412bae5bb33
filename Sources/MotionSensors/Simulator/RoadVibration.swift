// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Vertical vibration of a vehicle on a road, as a displacement jet (m) for the trajectory.
///
/// A real ride's vibration is broadband and random, not a pair of tones: the body bounces on its
/// suspension near 1–2 Hz, the wheels hop near 10–15 Hz, and the road adds a floor across the band
/// (seat and dashboard measurements of cars show most of their vertical acceleration between about
/// 1 and 20 Hz, of the order of 0.1–0.5 m/s² rms in town). It is modelled as 24 tones spread
/// log-uniformly from 0.7 to 22 Hz (their spacing is incommensurate, so a few seconds of signal
/// look like noise with that spectrum), each with a fixed phase, and weighted by two resonances
/// over a floor. ``displacement(_:level:)`` scales it by a level jet (the vehicle's speed profile),
/// so the vibration fades in and out with the motion and stops when the vehicle does.
struct RoadVibration: Sendable {
  /// Acceleration amplitude of each tone (m/s²) at level 1.
  let amplitudes: [Double]
  /// Frequencies (Hz).
  let frequencies: [Double]
  /// Phases (rad).
  let phases: [Double]

  /// A spectrum with suspension resonance `bodyFrequency`, wheel-hop resonance `wheelFrequency`
  /// (both Hz), the wheel resonance's weight relative to the body's, and a total rms vertical
  /// acceleration `rms` (m/s²) at level 1.
  init(bodyFrequency: Double, wheelFrequency: Double, wheelWeight: Double, rms: Double) {
    let count = 24
    let lowest = 0.7
    let highest = 22.0
    var frequencies: [Double] = []
    var weights: [Double] = []
    var phases: [Double] = []
    for k in 0..<count {
      // Log-uniform with a small fixed jitter, so that no two tones are harmonics of each other.
      let f =
        lowest * Double.pow(highest / lowest, Double(k) / Double(count - 1))
        * (1 + 0.03 * Double.sin(2.4 * Double(k)))
      let body = 1 / (1 + Self.squared((f - bodyFrequency) / (0.4 * bodyFrequency)))
      let wheel = wheelWeight / (1 + Self.squared((f - wheelFrequency) / (0.35 * wheelFrequency)))
      frequencies.append(f)
      weights.append(body + wheel + 0.15)
      // The golden angle spreads the phases evenly without a pattern.
      phases.append(2.399963229728653 * Double(k))
    }
    // A tone of amplitude A carries A²/2 of power: scale so that the sum is rms².
    let power = weights.reduce(0) { $0 + $1 * $1 / 2 }
    let scale = rms / power.squareRoot()
    self.amplitudes = weights.map { $0 * scale }
    self.frequencies = frequencies
    self.phases = phases
  }

  /// A car's seat or dashboard in town (about 0.25 m/s² rms at level 1).
  static let car = RoadVibration(
    bodyFrequency: 1.4, wheelFrequency: 12, wheelWeight: 0.6, rms: 0.25)
  /// A bicycle without suspension: the frame passes the road's roughness on (about 1 m/s² rms at
  /// level 1, most of it above 5 Hz).
  static let bicycle = RoadVibration(bodyFrequency: 3, wheelFrequency: 15, wheelWeight: 2, rms: 1.0)

  /// The vertical displacement (m) at local time `t` (s), scaled by `level`.
  func displacement(_ t: Double, level: Jet) -> Jet {
    var sum = Jet(0)
    for k in frequencies.indices {
      let omega = 2 * Double.pi * frequencies[k]
      sum =
        sum + (amplitudes[k] / (omega * omega))
        * Jet.sinusoid(t, frequency: frequencies[k], phase: phases[k])
    }
    return level * sum
  }

  @inline(__always)
  private static func squared(_ x: Double) -> Double { x * x }
}
