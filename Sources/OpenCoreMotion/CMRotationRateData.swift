// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A rotation-rate sample in rad/s about the device axes (iOS 14).
///
/// Apple delivers these from its batched and recorded sensor APIs, which OpenCoreMotion does not
/// have; the class is here so that code naming it compiles, and for tests and mocks. Live gyroscope
/// samples are ``CMGyroData``.
open class CMRotationRateData: CMLogItem {
  private let storedRotationRate: CMRotationRate

  /// The rotation rate in rad/s about the device axes.
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
    storedRotationRate = rotationRate
    super.init(timestamp: timestamp)
  }

  open override func encode(with coder: NSCoder) {
    super.encode(with: coder)
    coder.encodeVector(storedRotationRate.vector, forKey: "rotationRate")
  }

  public required init?(coder: NSCoder) {
    storedRotationRate = CMRotationRate(coder.decodeVector(forKey: "rotationRate"))
    super.init(coder: coder)
  }

  open override var description: String {
    "x \(rotationRate.x) y \(rotationRate.y) z \(rotationRate.z) @ \(timestamp)"
  }
}
