// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

/// Head-tracking device motion from supported headphones (iOS 14), with its delegate's connection
/// callbacks.
///
/// Linux exposes no motion sensor of any headphones (Bluetooth audio profiles carry none), so on
/// OpenCoreMotion no headphones ever connect: ``isDeviceMotionAvailable`` is `false`, and starting
/// updates, as Apple documents for a service whose hardware is missing, has no effect (no handler
/// call, no delegate call). The class is here so that apps with head tracking compile unchanged
/// and take their no-headphones path.
open class CMHeadphoneMotionManager: NSObject {
  /// Receives headphone device motion: a sample, or an error.
  public typealias DeviceMotionHandler = (CMDeviceMotion?, (any Error)?) -> Void

  /// Told when headphones with motion sensors connect or disconnect; never called here.
  open weak var delegate: (any CMHeadphoneMotionManagerDelegate)?

  public override init() {
    super.init()
  }

  /// Whether the app may use headphone motion (see ``CMAuthorizationStatus``).
  open class func authorizationStatus() -> CMAuthorizationStatus { CMAuthorizationStatus.current }

  /// Whether headphones with motion sensors are connected: never on Linux.
  open var isDeviceMotionAvailable: Bool { false }
  /// Whether updates are running: never, since starting has no effect.
  open var isDeviceMotionActive: Bool { false }
  /// The latest sample for pull mode: always `nil`.
  open var deviceMotion: CMDeviceMotion? { nil }
  /// Whether connection-status updates were started (iOS 18).
  open var isConnectionStatusActive: Bool { connectionStatus.withLock { $0 } }

  private let connectionStatus = Locked(false)

  /// Starts pull-mode updates: no effect without headphones.
  open func startDeviceMotionUpdates() {}

  /// Starts push-mode updates to `queue`: no effect without headphones (the handler is not
  /// called).
  open func startDeviceMotionUpdates(
    to queue: OperationQueue, withHandler handler: @escaping DeviceMotionHandler
  ) {}

  /// Stops updates (there are none to stop).
  open func stopDeviceMotionUpdates() {}

  /// Starts reporting connections and disconnections to the ``delegate`` (iOS 18); none happen.
  open func startConnectionStatusUpdates() {
    connectionStatus.withLock { $0 = true }
  }

  /// Stops reporting connections and disconnections.
  open func stopConnectionStatusUpdates() {
    connectionStatus.withLock { $0 = false }
  }
}

/// The delegate of a ``CMHeadphoneMotionManager``. Both methods are optional in Apple's API; the
/// empty defaults stand in for that.
public protocol CMHeadphoneMotionManagerDelegate: AnyObject {
  /// Headphones with motion sensors connected.
  func headphoneMotionManagerDidConnect(_ manager: CMHeadphoneMotionManager)
  /// They disconnected.
  func headphoneMotionManagerDidDisconnect(_ manager: CMHeadphoneMotionManager)
}

extension CMHeadphoneMotionManagerDelegate {
  public func headphoneMotionManagerDidConnect(_ manager: CMHeadphoneMotionManager) {}
  public func headphoneMotionManagerDidDisconnect(_ manager: CMHeadphoneMotionManager) {}
}
