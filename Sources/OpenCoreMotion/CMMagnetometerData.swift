// SPDX-License-Identifier: Apache-2.0

import Foundation

/// One raw magnetometer sample in µT: the earth's field plus the device's own and the
/// surroundings' distortion (``CMDeviceMotion/magneticField`` removes the device's part).
open class CMMagnetometerData: CMLogItem {
  private let storedMagneticField: CMMagneticField

  /// The raw field in µT along the device axes.
  open var magneticField: CMMagneticField { storedMagneticField }

  /// Creates a zero sample at timestamp 0.
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: a mock subclass can call
  /// `super.init()`.
  public override init() {
    storedMagneticField = CMMagneticField()
    super.init()
  }

  /// Creates a sample. An addition to Apple's API, for tests and mocks.
  public init(magneticField: CMMagneticField, timestamp: TimeInterval) {
    self.storedMagneticField = magneticField
    super.init(timestamp: timestamp)
  }

  open override func encode(with coder: NSCoder) {
    super.encode(with: coder)
    coder.encodeVector(storedMagneticField.vector, forKey: "magneticField")
  }

  public required init?(coder: NSCoder) {
    self.storedMagneticField = CMMagneticField(coder.decodeVector(forKey: "magneticField"))
    super.init(coder: coder)
  }

  open override var description: String {
    "x \(magneticField.x) y \(magneticField.y) z \(magneticField.z) @ \(timestamp)"
  }
}
