// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Depth, water pressure and water temperature while the device is under water (Apple Watch
/// Ultra; the API is also declared for iOS 16).
///
/// Apple sets ``waterSubmersionAvailable`` to `false` on every device but Apple Watch Ultra, and
/// so does OpenCoreMotion: no Linux sensor driver reports water depth or water temperature (a
/// barometer in a waterproof case could, but none describes itself as such). The delegate is
/// therefore never called, ``maximumDepth`` is `nil`, and the class is here so that apps with a
/// diving feature compile unchanged and take their not-available path.
open class CMWaterSubmersionManager: NSObject {
  /// Receives events, measurements, temperatures and errors; held weakly, as Apple declares it.
  open weak var delegate: (any CMWaterSubmersionManagerDelegate)?

  public override init() {
    super.init()
  }

  /// Whether this device measures depth under water: not on Linux.
  open class var waterSubmersionAvailable: Bool { false }

  /// Whether the app may use motion data (see ``CMAuthorizationStatus``).
  open class var authorizationStatus: CMAuthorizationStatus { CMAuthorizationStatus.current }

  /// The deepest the app is entitled to measure (6 m or 40 m on Apple Watch Ultra, depending on
  /// the app's entitlement); `nil` where submersion is not available.
  open var maximumDepth: Measurement<UnitLength>? { nil }
}

/// The delegate of a ``CMWaterSubmersionManager``. All four methods are optional in Apple's API
/// (the empty defaults stand in for that), and Apple calls them on a background queue.
public protocol CMWaterSubmersionManagerDelegate: AnyObject {
  /// The device went under water or came out of it.
  func manager(_ manager: CMWaterSubmersionManager, didUpdate event: CMWaterSubmersionEvent)
  /// New surface pressure and, under water, depth and water pressure (three a second under water).
  func manager(
    _ manager: CMWaterSubmersionManager, didUpdate measurement: CMWaterSubmersionMeasurement)
  /// A new water temperature (three a second under water).
  func manager(_ manager: CMWaterSubmersionManager, didUpdate measurement: CMWaterTemperature)
  /// The service failed.
  func manager(_ manager: CMWaterSubmersionManager, errorOccurred error: any Error)
}

extension CMWaterSubmersionManagerDelegate {
  public func manager(
    _ manager: CMWaterSubmersionManager, didUpdate event: CMWaterSubmersionEvent
  ) {}
  public func manager(
    _ manager: CMWaterSubmersionManager, didUpdate measurement: CMWaterSubmersionMeasurement
  ) {}
  public func manager(
    _ manager: CMWaterSubmersionManager, didUpdate measurement: CMWaterTemperature
  ) {}
  public func manager(_ manager: CMWaterSubmersionManager, errorOccurred error: any Error) {}
}
