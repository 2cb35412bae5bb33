// SPDX-License-Identifier: Apache-2.0

import Foundation

/// One raw gyroscope sample in rad/s, bias included (``CMDeviceMotion/rotationRate`` is the
/// bias-corrected rate).
open class CMGyroData: CMLogItem {
  private let storedRotationRate: CMRotationRate

  /// The raw rotation rate in rad/s about the device axes.
  open var rotationRate: CMRotationRate { storedRotationRate }

  /// Creates a zero sample at timestamp 0.
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: a mock subclass can call
  /// `super.init()`.
  public override init() {
    storedRotationRate = CMRotationRate()
    super.init()
  }

  /// Creates a sample. An addition to Apple's API, for tests and mocks.
  public init(rotationRate: CMRotationRate, timestamp: TimeInterval) {
    self.storedRotationRate = rotationRate
    super.init(timestamp: timestamp)
  }

  open override func encode(with coder: NSCoder) {
    super.encode(with: coder)
    coder.encodeVector(storedRotationRate.vector, forKey: "rotationRate")
  }

  public required init?(coder: NSCoder) {
    self.storedRotationRate = CMRotationRate(coder.decodeVector(forKey: "rotationRate"))
    super.init(coder: coder)
  }

  open override var description: String {
    "x \(rotationRate.x) y \(rotationRate.y) z \(rotationRate.z) @ \(timestamp)"
  }
}
