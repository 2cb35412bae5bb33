// SPDX-License-Identifier: Apache-2.0
//
// DaemonClient: an iOS-style program (plain CMMotionManager, nothing daemon-specific) used by the
// daemon's multi-process tests. Run it next to a daemon with `COREMOTION_SOURCE=daemon` (or with
// COREMOTION_SOURCE unset while motiond runs):
//
//   DaemonClientExample INTERVAL COUNT
//   DaemonClientExample motion INTERVAL COUNT
//   DaemonClientExample authorization
//
// prints one line per accelerometer update, `acc TIMESTAMP X Y Z` (g, 17 significant digits so the
// values can be compared exactly), then `done` after COUNT updates. With `motion`: one line per
// device-motion update in the magnetic-north frame, `motion TIMESTAMP QW QX QY QZ`. Errors print
// `error …` and the program keeps waiting (the daemon may come back).

import CoreMotion
import Foundation

let arguments = CommandLine.arguments

// `DaemonClientExample authorization`: prints what each motion-and-fitness class reports,
// `authorization PEDOMETER ACTIVITY RECORDER ALTIMETER` (raw values: 2 denied, 3 authorized).
if arguments.count > 1, arguments[1] == "authorization" {
  let statuses = [
    CMPedometer.authorizationStatus(), CMMotionActivityManager.authorizationStatus(),
    CMSensorRecorder.authorizationStatus(), CMAltimeter.authorizationStatus(),
  ]
  FileHandle.standardOutput.write(
    Data(
      ("authorization " + statuses.map { String($0.rawValue) }.joined(separator: " ") + "\ndone\n")
        .utf8))
  exit(0)
}
let isMotion = arguments.count > 1 && arguments[1] == "motion"
let numbers = Array(arguments.dropFirst(isMotion ? 2 : 1))
let interval = numbers.count > 0 ? Double(numbers[0]) ?? 0.01 : 0.01
let count = numbers.count > 1 ? Int(numbers[1]) ?? 100 : 100

/// Writes one line straight to standard output (unbuffered, so a killed program loses nothing).
func emit(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let manager = CMMotionManager()
let queue = OperationQueue()
queue.maxConcurrentOperationCount = 1
let finished = DispatchSemaphore(value: 0)
var received = 0  // touched only on `queue`, which is serial

if isMotion {
  guard manager.isDeviceMotionAvailable else {
    emit("error no device motion")
    exit(1)
  }
  manager.deviceMotionUpdateInterval = interval
  manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical, to: queue) { motion, error in
    if let error {
      emit("error \(error)")
      return
    }
    // Updates already queued when `count` is reached still run before the stop: not printed.
    guard let motion, received < count else { return }
    let q = motion.attitude.quaternion
    emit(
      String(format: "motion %.17g %.17g %.17g %.17g %.17g", motion.timestamp, q.w, q.x, q.y, q.z))
    received += 1
    if received == count { finished.signal() }
  }
  finished.wait()
  manager.stopDeviceMotionUpdates()
  emit("done")
  exit(0)
}

guard manager.isAccelerometerAvailable else {
  emit("error no accelerometer")
  exit(1)
}
manager.accelerometerUpdateInterval = interval
manager.startAccelerometerUpdates(to: queue) { data, error in
  if let error {
    emit("error \(error)")
    return
  }
  // Updates already queued when `count` is reached still run before the stop: not printed.
  guard let data, received < count else { return }
  let a = data.acceleration
  emit(String(format: "acc %.17g %.17g %.17g %.17g", data.timestamp, a.x, a.y, a.z))
  received += 1
  if received == count { finished.signal() }
}
finished.wait()
manager.stopAccelerometerUpdates()
emit("done")
