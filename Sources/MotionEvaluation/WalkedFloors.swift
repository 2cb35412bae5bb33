// SPDX-License-Identifier: Apache-2.0

import MotionDetectors

/// ``FloorCounter`` fed a recording's barometer readings in order, with every detected step noted
/// before the first reading at or after it (only floors walked on foot count).
package struct WalkedFloors: Sendable {
  private let stepTimes: [Double]
  private var nextStep = 0
  private var counter = FloorCounter()

  /// - Parameter stepTimes: the recording's steps, s, in increasing order.
  package init(stepTimes: [Double]) {
    self.stepTimes = stepTimes
  }

  /// Feeds one reading: time s (the steps' clock), pressure kPa.
  package mutating func add(time: Double, pressure: Double) {
    while nextStep < stepTimes.endIndex, stepTimes[nextStep] <= time {
      counter.noteStep(time: stepTimes[nextStep])
      nextStep += 1
    }
    _ = counter.process(time: time, pressure: pressure)
  }

  /// Floors walked up and down so far.
  package var result: (ascended: Int, descended: Int) {
    (counter.floorsAscended, counter.floorsDescended)
  }
}
