// SPDX-License-Identifier: Apache-2.0

import Foundation

/// One absolute-altitude event: metres above sea level with its uncertainty.
open class CMAbsoluteAltitudeData: CMLogItem {
  private let storedAltitude: Double
  private let storedAccuracy: Double
  private let storedPrecision: Double

  /// Altitude above sea level, m.
  open var altitude: Double { storedAltitude }
  /// Estimated uncertainty of ``altitude``, m (one standard deviation).
  open var accuracy: Double { storedAccuracy }
  /// The resolution worth showing, m.
  open var precision: Double { storedPrecision }

  /// A zero sample at timestamp 0.
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: a mock subclass can call
  /// `super.init()`.
  public override init() {
    storedAltitude = 0
    storedAccuracy = 0
    storedPrecision = 0
    super.init()
  }

  /// Creates a sample. An addition to Apple's API, for tests and mocks.
  public init(altitude: Double, accuracy: Double, precision: Double, timestamp: TimeInterval) {
    storedAltitude = altitude
    storedAccuracy = accuracy
    storedPrecision = precision
    super.init(timestamp: timestamp)
  }

  open override func encode(with coder: NSCoder) {
    super.encode(with: coder)
    coder.encode(storedAltitude, forKey: "altitude")
    coder.encode(storedAccuracy, forKey: "accuracy")
    coder.encode(storedPrecision, forKey: "precision")
  }

  public required init?(coder: NSCoder) {
    storedAltitude = coder.decodeDouble(forKey: "altitude")
    storedAccuracy = coder.decodeDouble(forKey: "accuracy")
    storedPrecision = coder.decodeDouble(forKey: "precision")
    super.init(coder: coder)
  }

  open override var description: String {
    String(format: "altitude %.2f m ± %.1f m @ %.3f", storedAltitude, storedAccuracy, timestamp)
  }
}
