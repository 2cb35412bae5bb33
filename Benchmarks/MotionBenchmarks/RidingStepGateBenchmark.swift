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

  /// One hour of steps at 2 steps/s with stops: every 90 s a ride of 60 s reported with high
  /// confidence, then 30 s reported as rest (a light) whose last 10 s have steps again, held as
  /// the stop's: pedalling, which the next ride report takes, or, before every fourth cycle, a
  /// walk's first steps, given back when the walk is confirmed 5 s after its report.
  static func exerciseWithStops(_ gate: inout RidingStepGate, steps: Int) -> Int {
    var counted = 0
    for index in 0..<steps {
      let time = Double(index) * 0.5
      let cycle = index / 180
      let phase = index % 180
      if phase == 0 {
        gate.noteActivity(
          cycle % 4 == 3
            ? ActivityEstimate(walking: true, confidence: .medium, startTime: time)
            : ActivityEstimate(cycling: true, confidence: .high, startTime: time))
      } else if phase == 120 {
        gate.noteActivity(ActivityEstimate(stationary: true, confidence: .high, startTime: time))
      }
      // Standing still for the first 20 s of the stop.
      if phase < 120 || phase >= 160 { gate.offer(stepTime: time) }
      gate.advance(to: time)
      while gate.nextStep() != nil { counted += 1 }
    }
    return counted
  }

  static func run(report: (String, Double, String, String) -> Void) {
    measure(
      "steps: RidingStepGate", warmUpSteps: 240,  // one ride and one walk: both rings used
      explanation: "walks, and 12 s of each ride given back 5 s into the walk", report: report,
      exercise: exercise)
    measure(
      "steps: RidingStepGate with stops", warmUpSteps: 720,  // a ride, a stop and a walk
      explanation: "the walks after every fourth stop", report: report,
      exercise: exerciseWithStops)
  }

  /// Times `exercise` over 7,200 steps (the best of five runs, per step) and counts its heap
  /// allocations after a warm-up of `warmUpSteps`.
  static func measure(
    _ name: String, warmUpSteps: Int, explanation: String,
    report: (String, Double, String, String) -> Void,
    exercise: (inout RidingStepGate, Int) -> Int
  ) {
    let steps = 7200
    var counted = 0
    var best = Double.infinity
    for _ in 0..<5 {
      var gate = RidingStepGate()
      let start = DispatchTime.now().uptimeNanoseconds
      counted = exercise(&gate, steps)
      best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) * 1e-9)
    }
    report(
      name, best / Double(steps) * 1e9, "ns/step",
      "(\(counted) of \(steps) steps counted: \(explanation))")

    guard motion_allocation_counting_available() != 0 else { return }
    var gate = RidingStepGate()
    _ = exercise(&gate, warmUpSteps)
    let before = motion_allocation_count()
    counted = exercise(&gate, steps)
    let allocations = motion_allocation_count() - before
    report(
      "\(name), allocations per step", Double(allocations) / Double(steps), "",
      "(\(allocations) over \(steps) steps)")
  }
}
