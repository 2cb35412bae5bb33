// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors
import _AllocationCounter

/// Per-sample cost and steady-state heap allocations of `ActivityClassifier` at 15, 50 and 100 Hz,
/// on a synthetic signal that switches between rest, walking and running every 30 s.
func benchmarkActivity() {
  for rate in [15.0, 50.0, 100.0] {
    let count = Int(rate * 3600)  // one hour
    var samples = [SIMD3<Double>](repeating: .zero, count: count)
    for i in 0..<count {
      let t = Double(i) / rate
      let phase = Int(t / 30) % 3
      let (amplitude, frequency) = [(0.005, 0.0), (0.3, 1.9), (0.9, 2.7)][phase]
      let bounce = amplitude * sin(2 * Double.pi * frequency * t) + 0.002 * sin(37 * t)
      samples[i] = SIMD3(0.1 * bounce, -1 - bounce, 0.05)
    }
    var checksum = 0
    let time = bestWallTime {
      var classifier = ActivityClassifier()
      for i in 0..<count
      where classifier.process(time: Double(i) / rate, acceleration: samples[i]) != nil {
        checksum += 1
      }
    }
    report(
      "activity: ActivityClassifier at \(Int(rate)) Hz", time / Double(count) * 1e6, "µs/sample",
      "(\(checksum) changes reported in an hour)")

    guard motion_allocation_counting_available() != 0 else { continue }
    let probeStart = motion_allocation_count()
    let probe = [Double](repeating: Double(checksum), count: 1000)
    guard motion_allocation_count() > probeStart, probe.count == 1000 else {
      print("activity: heap allocation counting does not work in this build; skipped")
      continue
    }
    var classifier = ActivityClassifier()
    let warmUp = Int(rate * 10)
    var before: UInt64 = 0
    for i in 0..<count {
      if i == warmUp { before = motion_allocation_count() }
      _ = classifier.process(time: Double(i) / rate, acceleration: samples[i])
    }
    let allocations = motion_allocation_count() - before
    report(
      "activity: heap allocations per sample (\(Int(rate)) Hz)",
      Double(allocations) / Double(count - warmUp), "",
      "(\(allocations) allocations over \(count - warmUp) samples after a 10 s warm-up)")
  }
}
