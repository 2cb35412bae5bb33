// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors
import _AllocationCounter

/// `motion-benchmarks steps` (continued): the riding gate between the step detector and the
/// pedometer's count. It works per step and per activity report, not per sample, so the figures
/// are per step: the cost of offering and taking a step through the gate, with the gate holding
/// and giving back steps as a ride and a walk alternate, and the heap allocations of that path.
enum RidingStepGateBenchmark {
  /// One hour of steps at 2 steps/s; every 60 s the activity alternates between a ride reported
  /// with high confidence and walking (which, 5 s later, gives back the last 12 s of held steps
  /// and the 5 s since).
  static func exercise(_ gate: inout RidingStepGate, steps: Int) -> Int {
    var counted = 0
    for index in 0..<steps {
      let time = Double(index) * 0.5
      if index % 120 == 0 {
        let riding = (index / 120) % 2 == 0
        gate.noteActivity(
          riding
            ? ActivityEstimate(cycling: true, confidence: .high, startTime: time)
            : ActivityEstimate(walking: true, confidence: .medium, startTime: time))
      }
      gate.offer(stepTime: time)
      gate.advance(to: time)
      while gate.nextStep() != nil { counted += 1 }
    }
    return counted
  }

  static func run(report: (String, Double, String, String) -> Void) {
    let steps = 7200
    var counted = 0
    var best = Double.infinity
    for _ in 0..<5 {
      var gate = RidingStepGate()
      let start = DispatchTime.now().uptimeNanoseconds
      counted = exercise(&gate, steps: steps)
      best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) * 1e-9)
    }
    report(
      "steps: RidingStepGate", best / Double(steps) * 1e9, "ns/step",
      "(\(counted) of \(steps) steps counted: walks, and 12 s of each ride given back 5 s into the walk)"
    )

    guard motion_allocation_counting_available() != 0 else { return }
    var gate = RidingStepGate()
    _ = exercise(&gate, steps: 240)  // one ride and one walk: both rings used
    let before = motion_allocation_count()
    counted = exercise(&gate, steps: steps)
    let allocations = motion_allocation_count() - before
    report(
      "steps: RidingStepGate heap allocations per step", Double(allocations) / Double(steps), "",
      "(\(allocations) over \(steps) steps)")
  }
}
