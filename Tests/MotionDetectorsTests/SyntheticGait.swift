// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors
import _MotionTestSupport

/// Synthetic accelerometer signals (g, Apple's sign: −(gravity direction) at rest) for the step
/// detector's tests. Every generator takes a seeded generator so failures can be replayed.
enum SyntheticGait {
  typealias Samples = [(time: Double, acceleration: SIMD3<Double>)]

  /// Walking or running at `cadence` steps/s: a vertical bounce with a second harmonic (the impact
  /// asymmetry) of `amplitude` g, the phone in a random orientation, white noise of `noise` g.
  static func walk(
    cadence: Double, seconds: Double, rate: Double = 100, amplitude: Double = 0.25,
    noise: Double = 0.02,
    start: Double = 0, using random: inout SplitMix64
  ) -> Samples {
    let up = random.nextUnitVector()
    let phaseOffset = Double.random(in: 0..<1, using: &random)
    return (0..<Int(seconds * rate)).map { index in
      let t = Double(index) / rate
      let phase = 2 * Double.pi * (cadence * t + phaseOffset)
      let bounce = amplitude * (sin(phase) + 0.3 * sin(2 * phase + 0.7))
      return (start + t, -up * (1 + bounce) + noiseVector(noise, &random))
    }
  }

  /// The phone still, face up, with sensor noise.
  static func rest(
    seconds: Double, rate: Double = 100, start: Double = 0, using random: inout SplitMix64
  ) -> Samples {
    (0..<Int(seconds * rate)).map { index in
      (start + Double(index) / rate, SIMD3(0, 0, -1) + noiseVector(0.01, &random))
    }
  }

  /// Shaking by hand: `amplitude` g sinusoid at `frequency` Hz along a random axis.
  static func shake(
    frequency: Double, seconds: Double, amplitude: Double = 1.5, rate: Double = 100,
    using random: inout SplitMix64
  ) -> Samples {
    let up = random.nextUnitVector()
    let axis = random.nextUnitVector()
    return (0..<Int(seconds * rate)).map { index in
      let t = Double(index) / rate
      return (
        t, -up + axis * amplitude * sin(2 * Double.pi * frequency * t) + noiseVector(0.02, &random)
      )
    }
  }

  /// A phone on a table tapped every `period` s (random 0.3–1.5 s when `nil`): 15 ms knocks of
  /// `amplitude` g along the table's normal, at 200 Hz.
  static func tapping(
    seconds: Double, period: Double?, amplitude: Double = 3, using random: inout SplitMix64
  ) -> Samples {
    let rate = 200.0
    var samples: Samples = (0..<Int(seconds * rate)).map { index in
      (Double(index) / rate, SIMD3(0, 0, -1) + noiseVector(0.01, &random))
    }
    var knock = 1.0
    while knock < seconds - 1 {
      let first = Int(knock * rate)
      for (offset, weight) in [1.0, -0.6, 0.3].enumerated() {
        samples[first + offset].acceleration.z -= amplitude * weight
      }
      knock += period ?? Double.random(in: 0.3...1.5, using: &random)
    }
    return samples
  }

  /// A car ride: road and engine vibration (white, ≈ 0.05 g per axis, mostly far above the step
  /// band), a slow body sway (0.02 g at about 1 Hz, drifting) and a pothole or kerb every 3–20 s
  /// (a 0.4 g jolt that rings down in about 0.3 s).
  static func carRide(
    seconds: Double, rate: Double = 100, using random: inout SplitMix64
  ) -> Samples {
    var bump = 0.0
    var nextBump = Double.random(in: 3...20, using: &random)
    var swayPhase = 0.0
    return (0..<Int(seconds * rate)).map { index in
      let t = Double(index) / rate
      if t >= nextBump {
        bump = 0.4
        nextBump += Double.random(in: 3...20, using: &random)
      }
      bump *= 0.85
      swayPhase += 2 * Double.pi * (1 + 0.3 * sin(0.1 * t)) / rate
      let sway = 0.02 * sin(swayPhase)
      return (t, SIMD3(sway, 0, -1 - bump * cos(40 * t)) + noiseVector(0.05, &random))
    }
  }

  /// A gait of sharp impacts, `frequency` per second, each followed by a second impact of
  /// `secondHeight` × its height at `secondPhase` of the period (Gaussian bumps of 50 ms at the
  /// period's 1 Hz scale), `amplitude` g, random orientation, 0.02 g noise. As steps (frequency =
  /// cadence) it is stairs in a pocket or a sensor on the lower back, where one step's impact
  /// shows two peaks; as strides (frequency = half the cadence, second impact at 0.5) it is
  /// running, the second bump being the other foot.
  static func impacts(
    frequency: Double, secondPhase: Double, secondHeight: Double, amplitude: Double = 0.3,
    seconds: Double = 60, rate: Double = 100, using random: inout SplitMix64
  ) -> Samples {
    let up = random.nextUnitVector()
    let width = 0.05 * frequency  // of the period
    func bump(_ phase: Double, at centre: Double) -> Double {
      var offset = (phase - centre).truncatingRemainder(dividingBy: 1)
      if offset < -0.5 { offset += 1 } else if offset >= 0.5 { offset -= 1 }
      return exp(-0.5 * (offset / width) * (offset / width))
    }
    let count = Int(seconds * rate)
    let profile = (0..<count).map { index -> Double in
      let phase = (Double(index) / rate * frequency).truncatingRemainder(dividingBy: 1)
      return bump(phase, at: 0) + secondHeight * bump(phase, at: secondPhase)
    }
    let mean = profile.reduce(0, +) / Double(max(count, 1))
    return profile.enumerated().map { index, value in
      (Double(index) / rate, -up * (1 + amplitude * (value - mean)) + noiseVector(0.02, &random))
    }
  }

  static func noiseVector(_ sigma: Double, _ random: inout SplitMix64) -> SIMD3<Double> {
    SIMD3(random.nextGaussian(), random.nextGaussian(), random.nextGaussian()) * sigma
  }

  /// Runs a fresh detector; returns each step's time and the time of the sample that confirmed it.
  static func detect(
    _ samples: Samples, parameters: StepDetector.Parameters = .default
  ) -> [(step: Double, confirmedAt: Double)] {
    var detector = StepDetector(parameters: parameters)
    var steps: [(Double, Double)] = []
    for sample in samples {
      if let step = detector.process(time: sample.time, acceleration: sample.acceleration) {
        steps.append((step, sample.time))
      }
    }
    return steps
  }
}
