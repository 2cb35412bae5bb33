// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import OpenCoreMotion

/// Starts `monitor pedometer|activity|altitude` on `source`: one line per pedometer update or
/// pause/resume event, per activity change, or per altimeter event. Returns what stops it (after
/// letting the updates already queued run) and whether the history has observed a sample, so that
/// a source that ends without one is reported rather than ending in silence.
///
/// The history observes the source only once the handlers are subscribed, so that a source played
/// as fast as possible cannot get ahead of the monitor.
func startHistoryMonitor(
  _ what: MonitorTarget, source: any SensorSource, queue: OperationQueue, session: SourceSession
) throws -> (stop: () -> Void, observedASample: () -> Bool) {
  let history = InProcessMotionHistory(source: source, startsObserving: false)
  let observedASample = { history.latestSampleDate != nil }
  let seconds = { (date: Date) -> Double in history.timestamp(for: date) ?? 0 }
  switch what {
  case .pedometer:
    guard source.availableSensors.contains(.accelerometer) else {
      throw CLIError("\(source.name) has no accelerometer: steps cannot be counted")
    }
    let pedometer = CMPedometer(backend: history)
    pedometer.startUpdates(from: .distantPast) { data, error in
      session.emit(error)
        ?? data.map {
          session.print(String(format: "%10.3f %@", seconds($0.endDate), pedometerLine($0)))
        }
    }
    pedometer.startEventUpdates { event, error in
      session.emit(error)
        ?? event.map {
          session.print(
            String(format: "%10.3f %@", seconds($0.date), $0.type == .pause ? "pause" : "resume"))
        }
    }
    history.startObserving()
    let stop = {
      pedometer.handlerQueue.waitUntilAllOperationsAreFinished()
      pedometer.stopUpdates()
      pedometer.stopEventUpdates()
    }
    return (stop, observedASample)
  case .activity:
    guard source.availableSensors.contains(.accelerometer) else {
      throw CLIError("\(source.name) has no accelerometer: activity cannot be classified")
    }
    let manager = CMMotionActivityManager(backend: history)
    manager.startActivityUpdates(to: queue) { activity in
      activity.map {
        session.print(String(format: "%10.3f activity %@", $0.timestamp, activityLine($0)))
      }
    }
    history.startObserving()
    let stop = {
      queue.waitUntilAllOperationsAreFinished()
      manager.stopActivityUpdates()
    }
    return (stop, observedASample)
  case .altitude:
    guard source.availableSensors.contains(.barometer) else {
      throw CLIError("\(source.name) has no barometer: altitude is not available")
    }
    let altimeter = CMAltimeter(backend: history)
    altimeter.startRelativeAltitudeUpdates(to: queue) { data, error in
      session.emit(error)
        ?? data.map {
          session.print(
            String(
              format: "%10.3f relative altitude %+8.2f m  pressure %9.4f kPa", $0.timestamp,
              $0.relativeAltitude.doubleValue, $0.pressure.doubleValue))
        }
    }
    history.startObserving()
    let stop = {
      queue.waitUntilAllOperationsAreFinished()
      altimeter.stopRelativeAltitudeUpdates()
    }
    return (stop, observedASample)
  default:
    return ({}, { true })
  }
}

/// `steps N  distance D m  …` for a pedometer update.
func pedometerLine(_ data: CMPedometerData) -> String {
  var line = "steps \(data.numberOfSteps.intValue)"
  if let distance = data.distance {
    line += String(format: "  distance %.1f m", distance.doubleValue)
  }
  if let cadence = data.currentCadence {
    line += String(format: "  cadence %.2f steps/s", cadence.doubleValue)
  }
  if let pace = data.currentPace { line += String(format: "  pace %.2f s/m", pace.doubleValue) }
  if let up = data.floorsAscended, let down = data.floorsDescended {
    line += "  floors +\(up.intValue) -\(down.intValue)"
  }
  return line
}

/// `walking (medium)`, `automotive+stationary (high)`, … for an activity.
func activityLine(_ activity: CMMotionActivity) -> String {
  var names: [String] = []
  if activity.stationary { names.append("stationary") }
  if activity.walking { names.append("walking") }
  if activity.running { names.append("running") }
  if activity.automotive { names.append("automotive") }
  if activity.cycling { names.append("cycling") }
  if activity.unknown { names.append("unknown") }
  let confidence = ["low", "medium", "high"][activity.confidence.rawValue]
  return (names.isEmpty ? "none" : names.joined(separator: "+")) + " (\(confidence))"
}
