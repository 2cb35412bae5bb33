// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A recorded rotation-rate sample with the wall-clock date it was taken (iOS 14). See
/// ``CMRotationRateData`` for why nothing in OpenCoreMotion produces it.
open class CMRecordedRotationRateData: CMRotationRateData {
  private let storedStartDate: Date

  /// The wall-clock time of the sample.
  open var startDate: Date { storedStartDate }

  /// An empty sample at the reference date.
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: a mock subclass can call
  /// `super.init()`.
  public override init() {
    storedStartDate = Date(timeIntervalSinceReferenceDate: 0)
    super.init()
  }

  /// Creates a sample. An addition to Apple's API, for tests and mocks.
  public init(rotationRate: CMRotationRate, timestamp: TimeInterval, startDate: Date) {
    storedStartDate = startDate
    super.init(rotationRate: rotationRate, timestamp: timestamp)
  }

  open override func encode(with coder: NSCoder) {
    super.encode(with: coder)
    coder.encodeDate(storedStartDate, forKey: "startDate")
  }

  public required init?(coder: NSCoder) {
    storedStartDate = coder.decodeDate(forKey: "startDate")
    super.init(coder: coder)
  }

  open override var description: String {
    super.description + " (\(storedStartDate.logDescription))"
  }
}
