// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors
import _AllocationCounter

/// `motion-benchmarks steps`: the step detector's cost per sample and its heap allocations in
/// steady state, on a synthetic 10-minute walk (2 steps/s) sampled at 100 Hz and at 400 Hz (the
/// resampling grid makes the cost per input sample fall with the input rate). Self-contained: it
/// needs only MotionDetectors and the allocation counter.
enum StepDetectorBenchmark {
  /// Samples of a walk: vertical bounce with a second harmonic, in an oblique device orientation,
  /// acceleration in g with Apple's sign.
  static func walk(rate: Double, seconds: Double) -> [(Double, SIMD3<Double>)] {
    let count = Int(rate * seconds)
    let up = SIMD3<Double>(0.3, -0.5, 0.81)
    let norm = (up * up).sum().squareRoot()
    return (0..<count).map { index in
      let t = Double(index) / rate
      let phase = 2 * Double.pi * 2.0 * t
      let bounce = 0.25 * sin(phase) + 0.08 * sin(2 * phase + 0.7)
      return (t, -(up / norm) * (1 + bounce) + SIMD3(0.02 * sin(7.3 * t), 0.02 * cos(5.1 * t), 0))
    }
  }

  /// Stairs with the phone in a trouser pocket: one impact per stride in |a| (the other leg's
  /// step hidden), 0.9 strides/s, and the thigh's rotation (2 rad/s about an oblique axis) at
  /// the same rate: the samples carry both, as a phone's do.
  static func pocketStairs(
    rate: Double, seconds: Double
  ) -> [(Double, SIMD3<Double>, SIMD3<Double>)] {
    let count = Int(rate * seconds)
    let up = SIMD3<Double>(0.3, -0.5, 0.81)
    let norm = (up * up).sum().squareRoot()
    let axis = SIMD3<Double>(0.8, 0.36, -0.48)
    return (0..<count).map { index in
      let t = Double(index) / rate
      let phase = (0.9 * t).truncatingRemainder(dividingBy: 1)
      let offset = phase < 0.5 ? phase : phase - 1
      let impact = exp(-0.5 * (offset / 0.045) * (offset / 0.045)) - 0.11
      let acceleration = -(up / norm) * (1 + impact) + SIMD3(0.02 * sin(7.3 * t), 0, 0)
      return (t, acceleration, axis * 2 * sin(2 * Double.pi * 0.9 * t + 0.3))
    }
  }

  static func run(report: (String, Double, String, String) -> Void) {
    for rate in [100.0, 400.0] {
      let samples = walk(rate: rate, seconds: 600)
      var steps = 0
      var best = Double.infinity
      for _ in 0..<5 {
        var detector = StepDetector()
        steps = 0
        let start = DispatchTime.now().uptimeNanoseconds
        for (time, acceleration) in samples
        where detector.process(time: time, acceleration: acceleration) != nil {
          steps += 1
        }
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) * 1e-9)
      }
      report(
        "steps: StepDetector at \(Int(rate)) Hz", best / Double(samples.count) * 1e6, "µs/sample",
        "(\(steps) steps in 600 s at 2 steps/s)")
    }

    // With the gyroscope: both calls per sample, against |a| alone on the same samples in the
    // same run (the machines are shared; the ratio is the figure to compare).
    let stairs = pocketStairs(rate: 100, seconds: 600)
    var alone = Double.infinity
    var both = Double.infinity
    var counts = (alone: 0, both: 0, added: 0)
    for _ in 0..<5 {
      var detector = StepDetector()
      var start = DispatchTime.now().uptimeNanoseconds
      counts.alone = 0
      for (time, acceleration, _) in stairs
      where detector.process(time: time, acceleration: acceleration) != nil {
        counts.alone += 1
      }
      alone = min(alone, Double(DispatchTime.now().uptimeNanoseconds - start) * 1e-9)
      detector = StepDetector()
      start = DispatchTime.now().uptimeNanoseconds
      counts.both = 0
      for (time, acceleration, rotationRate) in stairs {
        detector.process(time: time, rotationRate: rotationRate)
        if detector.process(time: time, acceleration: acceleration) != nil { counts.both += 1 }
      }
      both = min(both, Double(DispatchTime.now().uptimeNanoseconds - start) * 1e-9)
      counts.added = detector.gyroscopeSteps
    }
    report(
      "steps: with the gyroscope at 100 Hz", both / Double(stairs.count) * 1e6,
      "µs/sample",
      String(
        format:
          "(%.2f× |a| alone on the same samples; pocket stairs: %d steps, %d without the gyroscope, %d added)",
        both / alone, counts.both, counts.alone, counts.added))

    guard motion_allocation_counting_available() != 0 else { return }
    let samples = walk(rate: 100, seconds: 120)
    let probeStart = motion_allocation_count()
    let probe = [Double](repeating: 1, count: 1000)
    guard motion_allocation_count() > probeStart, probe.count == 1000 else {
      print("steps: heap allocation counting does not work in this build; skipped")
      return
    }
    var detector = StepDetector()
    let warmUp = 1000  // 10 s: bouts confirmed, buffers touched
    var before: UInt64 = 0
    var steps = 0
    for (index, (time, acceleration)) in samples.enumerated() {
      if index == warmUp { before = motion_allocation_count() }
      if detector.process(time: time, acceleration: acceleration) != nil { steps += 1 }
    }
    let allocations = motion_allocation_count() - before
    report(
      "steps: heap allocations per sample (steady state)",
      Double(allocations) / Double(samples.count - warmUp), "",
      "(\(allocations) over \(samples.count - warmUp) samples; \(steps) steps)")

    // The gyroscope's path, steps added included.
    var withGyroscope = StepDetector()
    let pocket = pocketStairs(rate: 100, seconds: 120)
    steps = 0
    for (index, (time, acceleration, rotationRate)) in pocket.enumerated() {
      if index == warmUp { before = motion_allocation_count() }
      withGyroscope.process(time: time, rotationRate: rotationRate)
      if withGyroscope.process(time: time, acceleration: acceleration) != nil { steps += 1 }
    }
    let gyroscopeAllocations = motion_allocation_count() - before
    report(
      "steps: allocations per sample, gyroscope",
      Double(gyroscopeAllocations) / Double(pocket.count - warmUp), "",
      "(\(gyroscopeAllocations) over \(pocket.count - warmUp) samples; \(steps) steps, "
        + "\(withGyroscope.gyroscopeSteps) added)")
  }
}
