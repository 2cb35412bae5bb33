// SPDX-License-Identifier: Apache-2.0

import Foundation

/// One altimeter event: the change in altitude since the first event of the updates, and the
/// barometric pressure.
open class CMAltitudeData: CMLogItem {
  private let storedRelativeAltitude: Double
  private let storedPressure: Double

  /// Metres of altitude change since the first event of these updates (which reports 0).
  open var relativeAltitude: NSNumber { NSNumber(value: storedRelativeAltitude) }
  /// Barometric pressure, kPa.
  open var pressure: NSNumber { NSNumber(value: storedPressure) }

  /// A zero sample at timestamp 0.
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: a mock subclass can call
  /// `super.init()`.
  public override init() {
    storedRelativeAltitude = 0
    storedPressure = 0
    super.init()
  }

  /// Creates a sample. An addition to Apple's API, for tests and mocks.
  public init(relativeAltitude: Double, pressure: Double, timestamp: TimeInterval) {
    storedRelativeAltitude = relativeAltitude
    storedPressure = pressure
    super.init(timestamp: timestamp)
  }

  open override func encode(with coder: NSCoder) {
    super.encode(with: coder)
    coder.encode(storedRelativeAltitude, forKey: "relativeAltitude")
    coder.encode(storedPressure, forKey: "pressure")
  }

  public required init?(coder: NSCoder) {
    storedRelativeAltitude = coder.decodeDouble(forKey: "relativeAltitude")
    storedPressure = coder.decodeDouble(forKey: "pressure")
    super.init(coder: coder)
  }

  open override var description: String {
    String(
      format: "relative altitude %.2f m, pressure %.4f kPa @ %.3f", storedRelativeAltitude,
      storedPressure, timestamp)
  }
}
