// SPDX-License-Identifier: Apache-2.0

import MotionDetectors

/// ``FloorCounter`` fed a recording's barometer readings in order, with every detected step noted
/// before the first reading at or after it (only floors walked on foot count).
package struct WalkedFloors: Sendable {
  private let stepTimes: [Double]
  private var nextStep = 0
  private var counter = FloorCounter()
  /// Readings fed so far.
  package private(set) var readingCount = 0
  /// Readings of those that the floor counter refused (``FloorCounter/refusedReadings``).
  package var refusedReadingCount: Int { counter.refusedReadings }
  /// Whether at least one reading was used: without one the recording has no barometer to count
  /// floors with, which is not the same as having walked none.
  package var hasUsableReadings: Bool { readingCount > refusedReadingCount }

  /// - Parameter stepTimes: the recording's steps, s, in increasing order.
  package init(stepTimes: [Double]) {
    self.stepTimes = stepTimes
  }

  /// Feeds one reading: time s (the steps' clock), pressure kPa.
  package mutating func add(time: Double, pressure: Double) {
    readingCount &+= 1
    while nextStep < stepTimes.endIndex, stepTimes[nextStep] <= time {
      counter.noteStep(time: stepTimes[nextStep])
      nextStep += 1
    }
    _ = counter.process(time: time, pressure: pressure)
  }

  /// Floors walked up and down so far, or `nil` while no reading was usable (none fed, or every
  /// one refused): here, not in each caller, so that a recording counted while read and one
  /// loaded whole agree that a barometer with nothing usable gives no floors, not zero.
  package var result: (ascended: Int, descended: Int)? {
    hasUsableReadings ? (counter.floorsAscended, counter.floorsDescended) : nil
  }
}
