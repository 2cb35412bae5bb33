// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Motion activity (walking, running, …) and connection status from supported headphones
/// (iOS 18): ``CMMotionActivityManager``'s information, measured at the head instead of the phone.
///
/// Linux exposes no motion sensor of any headphones (Bluetooth audio profiles carry none), so on
/// OpenCoreMotion the device supports neither service: ``isActivityAvailable`` and
/// ``isStatusAvailable`` are `false`, and starting either, as Apple documents for a service whose
/// hardware is missing, has no effect: no handler is called and nothing is queued. Apple's own
/// advice is to check both properties first; apps that do take their no-headphones path, and the
/// class is here so that they compile unchanged.
open class CMHeadphoneActivityManager: NSObject {
  /// Receives a headphone motion activity, or an error.
  public typealias ActivityHandler = (CMMotionActivity?, (any Error)?) -> Void
  /// Receives a change of the headphones' connection, or an error.
  public typealias StatusHandler = (CMHeadphoneActivityManager.Status, (any Error)?) -> Void

  /// Whether compatible headphones are connected (Apple's raw values).
  public enum Status: Int, Sendable {
    /// The headphones disconnected.
    case disconnected = 0
    /// Compatible headphones are connected.
    case connected = 1
  }

  public override init() {
    super.init()
  }

  /// Whether the app may use motion data (see ``CMAuthorizationStatus``).
  open class func authorizationStatus() -> CMAuthorizationStatus { CMAuthorizationStatus.current }

  /// Whether the device supports headphone motion activity: not on Linux.
  open var isActivityAvailable: Bool { false }
  /// Whether the device reports headphone connections: not on Linux.
  open var isStatusAvailable: Bool { false }
  /// Whether activity updates are running: never, since starting has no effect.
  open var isActivityActive: Bool { false }
  /// Whether status updates are running: never, since starting has no effect.
  open var isStatusActive: Bool { false }

  /// Starts headphone activity updates to `queue`: no effect without headphone motion sensors
  /// (the handler is not called).
  open func startActivityUpdates(
    to queue: OperationQueue, withHandler handler: @escaping ActivityHandler
  ) {}

  /// Stops activity updates (there are none to stop).
  open func stopActivityUpdates() {}

  /// Starts connection-status updates to `queue`. On Apple's devices the handler is told
  /// ``Status/connected`` at once when headphones are already connected; here none ever connect,
  /// so it is not called.
  open func startStatusUpdates(
    to queue: OperationQueue, withHandler handler: @escaping StatusHandler
  ) {}

  /// Stops connection-status updates (there are none to stop).
  open func stopStatusUpdates() {}
}
