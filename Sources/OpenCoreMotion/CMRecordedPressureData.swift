// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A recorded barometer sample with the wall-clock date it was taken and a unique identifier
/// (iOS 15.4). See ``CMAmbientPressureData`` for why nothing in OpenCoreMotion produces it.
open class CMRecordedPressureData: CMAmbientPressureData {
  private let storedStartDate: Date
  private let storedIdentifier: UInt64

  /// The wall-clock time of the sample.
  open var startDate: Date { storedStartDate }
  /// A number unique to this sample; later samples have larger identifiers.
  open var identifier: UInt64 { storedIdentifier }

  /// An empty sample at the reference date, identifier 0.
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: a mock subclass can call
  /// `super.init()`.
  public override init() {
    storedStartDate = Date(timeIntervalSinceReferenceDate: 0)
    storedIdentifier = 0
    super.init()
  }

  /// Creates a sample. An addition to Apple's API, for tests and mocks.
  public init(
    pressure: Measurement<UnitPressure>, temperature: Measurement<UnitTemperature>,
    timestamp: TimeInterval, startDate: Date, identifier: UInt64
  ) {
    storedStartDate = startDate
    storedIdentifier = identifier
    super.init(pressure: pressure, temperature: temperature, timestamp: timestamp)
  }

  open override func encode(with coder: NSCoder) {
    super.encode(with: coder)
    coder.encodeDate(storedStartDate, forKey: "startDate")
    coder.encodeUnsigned(storedIdentifier, forKey: "identifier")
  }

  public required init?(coder: NSCoder) {
    storedStartDate = coder.decodeDate(forKey: "startDate")
    storedIdentifier = coder.decodeUnsigned(forKey: "identifier")
    super.init(coder: coder)
  }

  open override var description: String {
    "#\(storedIdentifier) " + super.description + " (\(storedStartDate.logDescription))"
  }
}
