// SPDX-License-Identifier: Apache-2.0

import Foundation

/// One accelerometer sample: the raw acceleration in g, gravity included, with Core Motion's sign
/// (lying face up at rest: (0, 0, −1)).
open class CMAccelerometerData: CMLogItem {
  private let storedAcceleration: CMAcceleration

  /// The acceleration in g along the device axes (gravity included).
  open var acceleration: CMAcceleration { storedAcceleration }

  /// Creates a zero sample at timestamp 0.
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: a mock subclass can call
  /// `super.init()`.
  public override init() {
    storedAcceleration = CMAcceleration()
    super.init()
  }

  /// Creates a sample. An addition to Apple's API, for tests and mocks.
  public init(acceleration: CMAcceleration, timestamp: TimeInterval) {
    self.storedAcceleration = acceleration
    super.init(timestamp: timestamp)
  }

  open override func encode(with coder: NSCoder) {
    super.encode(with: coder)
    coder.encodeVector(storedAcceleration.vector, forKey: "acceleration")
  }

  public required init?(coder: NSCoder) {
    self.storedAcceleration = CMAcceleration(coder.decodeVector(forKey: "acceleration"))
    super.init(coder: coder)
  }

  open override var description: String {
    "x \(acceleration.x) y \(acceleration.y) z \(acceleration.z) @ \(timestamp)"
  }
}
