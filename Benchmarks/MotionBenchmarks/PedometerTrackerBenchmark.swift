// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors
import _AllocationCounter

/// `motion-benchmarks steps` (continued): the whole per-sample path of the pedometer,
/// ``PedometerTracker`` (step detector, activity classifier and riding gate), on the same
/// 10-minute walk at 100 Hz as the step detector's figure, next to the three parts wired by hand
/// in the same run (what each caller wrote before the tracker), and its heap allocations per
/// sample in steady state.
enum PedometerTrackerBenchmark {
  static func run(report: (String, Double, String, String) -> Void) {
    let samples = StepDetectorBenchmark.walk(rate: 100, seconds: 600)
    var tracked = Double.infinity
    var byHand = Double.infinity
    var counts = (tracked: 0, byHand: 0)
    for _ in 0..<5 {
      var tracker = PedometerTracker()
      counts.tracked = 0
      var start = DispatchTime.now().uptimeNanoseconds
      for (time, acceleration) in samples {
        tracker.process(time: time, acceleration: acceleration)
        while tracker.nextStep() != nil { counts.tracked += 1 }
      }
      tracked = min(tracked, Double(DispatchTime.now().uptimeNanoseconds - start) * 1e-9)

      var detector = StepDetector()
      var classifier = ActivityClassifier()
      var gate = RidingStepGate()
      counts.byHand = 0
      start = DispatchTime.now().uptimeNanoseconds
      for (time, acceleration) in samples {
        if let step = detector.process(time: time, acceleration: acceleration) {
          gate.offer(stepTime: step)
        }
        if let estimate = classifier.process(time: time, acceleration: acceleration) {
          gate.noteActivity(estimate)
        }
        gate.advance(to: time)
        while gate.nextStep() != nil { counts.byHand += 1 }
      }
      byHand = min(byHand, Double(DispatchTime.now().uptimeNanoseconds - start) * 1e-9)
    }
    report(
      "steps: PedometerTracker at 100 Hz", tracked / Double(samples.count) * 1e6, "µs/sample",
      String(
        format: "(%.2f× the three parts wired by hand in the same run; %d steps, by hand %d)",
        tracked / byHand, counts.tracked, counts.byHand))

    guard motion_allocation_counting_available() != 0 else { return }
    var tracker = PedometerTracker()
    let warmUp = 1000  // 10 s: the classifier's first window full, the detector's bout confirmed
    var before: UInt64 = 0
    var steps = 0
    for (index, (time, acceleration)) in samples.prefix(12_000).enumerated() {
      if index == warmUp { before = motion_allocation_count() }
      tracker.process(time: time, acceleration: acceleration)
      while tracker.nextStep() != nil { steps += 1 }
    }
    let allocations = motion_allocation_count() - before
    report(
      "steps: PedometerTracker heap allocations per sample (steady state)",
      Double(allocations) / Double(12_000 - warmUp), "",
      "(\(allocations) over \(12_000 - warmUp) samples; \(steps) steps)")
  }
}
