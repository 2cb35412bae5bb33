// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The base class of every timestamped Core Motion sample.
///
/// ``timestamp`` is the sample's time in seconds on its source's clock: seconds since boot
/// (`CLOCK_BOOTTIME`) for live hardware, as on Apple devices, and the recording's or the
/// simulation's own clock for replays and simulations.
open class CMLogItem: NSObject, NSCopying, NSSecureCoding {
  private let storedTimestamp: TimeInterval

  /// The time of the sample in seconds (since boot for live sources).
  open var timestamp: TimeInterval { storedTimestamp }

  /// Creates an item with timestamp 0.
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: a mock subclass can call
  /// `super.init()`.
  public override init() {
    storedTimestamp = 0
    super.init()
  }

  /// Creates an item at `timestamp` seconds. An addition to Apple's API, for tests and mocks.
  public init(timestamp: TimeInterval) {
    self.storedTimestamp = timestamp
    super.init()
  }

  // MARK: NSCopying

  /// Returns `self`: log items are immutable.
  open func copy(with zone: NSZone? = nil) -> Any {
    self
  }

  // MARK: NSSecureCoding

  open class var supportsSecureCoding: Bool { true }

  open func encode(with coder: NSCoder) {
    coder.encode(storedTimestamp, forKey: CodingKey.timestamp)
  }

  public required init?(coder: NSCoder) {
    self.storedTimestamp = coder.decodeDouble(forKey: CodingKey.timestamp)
    super.init()
  }

  enum CodingKey {
    static let timestamp = "timestamp"
  }

  open override var description: String {
    "<\(type(of: self)) timestamp: \(timestamp)>"
  }
}

extension NSCoder {
  /// Encodes three doubles under `key.x`, `key.y`, `key.z`.
  func encodeVector(_ v: SIMD3<Double>, forKey key: String) {
    encode(v.x, forKey: key + ".x")
    encode(v.y, forKey: key + ".y")
    encode(v.z, forKey: key + ".z")
  }

  /// Decodes what ``encodeVector(_:forKey:)`` wrote (zeros when absent).
  func decodeVector(forKey key: String) -> SIMD3<Double> {
    SIMD3(
      decodeDouble(forKey: key + ".x"), decodeDouble(forKey: key + ".y"),
      decodeDouble(forKey: key + ".z"))
  }
}
