// SPDX-License-Identifier: Apache-2.0

import Logging

extension Logger {
  /// The Core Motion API's diagnostics (an invalid `COREMOTION_LOCATION`, calibration requests
  /// shown for ``CMMotionManager/showsDeviceMovementDisplay``). Standard error unless the app
  /// bootstraps `LoggingSystem` with another handler.
  static let openCoreMotion = Logger(label: "OpenCoreMotion")
}
