// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionSensors

/// Asks for calibration motion once per device-motion run: when a north-referenced frame runs
/// while the magnetometer is not calibrated (or no magnetic heading exists yet), the handler
/// receives `CMErrorDeviceRequiresMovement` once, as on Apple's devices; updates carry on
/// regardless. The corrected arbitrary frame does not ask: it simply leaves the yaw uncorrected
/// until the calibration is good.
///
/// With ``CMMotionManager/showsDeviceMovementDisplay`` set, the request is also logged (swift-log,
/// label `OpenCoreMotion`, notice level; standard error by default), our stand-in for the system's
/// "move the device" display.
final class CalibrationMovementRequest: Sendable {
  private let isApplicable: Bool
  private let showsDisplay: Bool
  private let hasReported = Locked(false)

  init(appliesTo frame: CMAttitudeReferenceFrame, showsDisplay: Bool) {
    isApplicable = frame.isNorthReferenced
    self.showsDisplay = showsDisplay
  }

  /// The error to report for `estimate`, the first time one is due; `nil` otherwise.
  func check(_ estimate: DeviceMotionPipeline.Estimate) -> NSError? {
    guard isApplicable, estimate.needsCalibrationMotion else { return nil }
    let isFirst = hasReported.withLock { reported -> Bool in
      defer { reported = true }
      return !reported
    }
    guard isFirst else { return nil }
    let message = "the magnetometer needs calibration: move the device in a figure 8"
    if showsDisplay {
      Logger.openCoreMotion.notice("\(message)")
    }
    return NSError(CMErrorDeviceRequiresMovement, description: message)
  }
}
