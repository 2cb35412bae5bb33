// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors
import MotionSensors
import _AllocationCounter

/// `motion-benchmarks steps` (continued) and `motion-benchmarks altitude`: the barometer's path,
/// ``BarometerTracker`` (relative altitude and walked floors), per reading, next to the bare
/// standard-atmosphere height of each reading (the shared altitude README's baseline formula)
/// in the same run, and its heap allocations per reading in steady state.
enum BarometerTrackerBenchmark {
  /// A synthetic hour: the readings, and each step's time (s) with the time it is noted at.
  typealias Hour = (readings: [Reading], steps: [(noted: Double, time: Double)])

  /// One barometer reading: time (s) and pressure (kPa).
  struct Reading {
    var time: Double
    var pressure: Double
  }

  /// An office hour at `rate` Hz: every 300 s a floor walked up in 10 s (steps every 0.5 s from
  /// 5 s before to 5 s after) and a floor ridden down in a lift in 16 s; the weather falling
  /// 0.15 kPa an hour; about 1 Pa of deterministic noise. The steps of every other climb are
  /// noted 17 s late, as the riding gate gives back a walk after a ride. Truth: 12 floors up,
  /// none down.
  static func officeHour(
    rate: Double
  ) -> Hour {
    let count = Int(3600 * rate)
    var readings: [Reading] = []
    readings.reserveCapacity(count)
    for index in 0..<count {
      let time = Double(index) / rate
      let cycle = (time / 300).rounded(.down)
      let inCycle = time - 300 * cycle
      let climbed = 3 * min(1, max(0, (inCycle - 100) / 10))
      let ridden = -3 * min(1, max(0, (inCycle - 200) / 16))
      let noise = 0.001 * (0.7 * sin(37.1 * time) + 0.5 * sin(91.7 * time + 1.3))
      let weather = -0.15 * time / 3600
      readings.append(
        Reading(
          time: time,
          pressure: StandardAtmosphere.pressure(atAltitude: climbed + ridden) + weather + noise))
    }
    var steps: [(noted: Double, time: Double)] = []
    for cycle in 0..<12 {
      let delay = cycle % 2 == 0 ? 0.0 : 17.0
      for time in stride(from: Double(cycle) * 300 + 95, to: Double(cycle) * 300 + 115, by: 0.5) {
        steps.append((time + delay, time))
      }
    }
    return (readings, steps)
  }

  /// Feeds the hour to `tracker`, each step before the first reading at or after its noting time.
  static func feed(
    _ tracker: inout BarometerTracker,
    _ hour: Hour
  ) -> Double {
    var nextStep = 0
    var altitude = 0.0
    for reading in hour.readings {
      while nextStep < hour.steps.count, hour.steps[nextStep].noted <= reading.time {
        tracker.noteStep(time: hour.steps[nextStep].time)
        nextStep += 1
      }
      if let result = tracker.process(time: reading.time, pressure: reading.pressure) {
        altitude = result.altitude
      }
    }
    return altitude
  }

  static func run(report: (String, Double, String, String) -> Void) {
    let rate = 25.0
    let hour = officeHour(rate: rate)
    var tracked = Double.infinity
    var formula = Double.infinity
    var floors = (ascended: 0, descended: 0)
    // The last relative altitude of each path (printed, so that neither loop is optimised away):
    // the weather's 0.15 kPa is about 12.5 m of apparent height.
    var finalAltitude = (tracked: 0.0, formula: 0.0)
    for _ in 0..<5 {
      var tracker = BarometerTracker()
      var start = DispatchTime.now().uptimeNanoseconds
      finalAltitude.tracked = feed(&tracker, hour)
      tracked = min(tracked, Double(DispatchTime.now().uptimeNanoseconds - start) * 1e-9)
      floors = (tracker.floorsAscended, tracker.floorsDescended)

      start = DispatchTime.now().uptimeNanoseconds
      var first: Double?
      for reading in hour.readings {
        let height = BarometricAltitude.height(atPressure: reading.pressure)
        if first == nil { first = height }
        finalAltitude.formula = height - (first ?? height)
      }
      formula = min(formula, Double(DispatchTime.now().uptimeNanoseconds - start) * 1e-9)
    }
    let count = Double(hour.readings.count)
    report(
      "altitude: BarometerTracker at 25 Hz", tracked / count * 1e6, "µs/reading",
      String(
        format:
          "(%.1f× the bare standard-atmosphere height in the same run; floors %d up, %d down of 12 and 0; last altitude %.2f m, bare %.2f m)",
        tracked / formula, floors.ascended, floors.descended, finalAltitude.tracked,
        finalAltitude.formula))

    guard motion_allocation_counting_available() != 0 else { return }
    var tracker = BarometerTracker()
    let warmUp = (readings: Array(hour.readings.prefix(Int(300 * rate))), steps: hour.steps)
    _ = feed(&tracker, warmUp)  // a whole cycle: every state of the level track used
    let rest = (
      readings: Array(hour.readings.dropFirst(Int(300 * rate))),
      steps: hour.steps.filter { $0.noted >= 300 }
    )
    let before = motion_allocation_count()
    _ = feed(&tracker, rest)
    let allocations = motion_allocation_count() - before
    report(
      "altitude: BarometerTracker heap allocations per reading (steady state)",
      Double(allocations) / Double(rest.readings.count), "",
      "(\(allocations) over \(rest.readings.count) readings)")
  }
}
