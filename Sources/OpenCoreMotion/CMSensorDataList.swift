// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The samples ``CMSensorRecorder/accelerometerData(from:to:)`` returns, oldest first.
///
/// Apple's list is enumerated with Objective-C fast enumeration; here it is a Swift `Sequence`, so
/// `for case let sample as CMRecordedAccelerometerData in list` (Apple's Swift idiom) and the
/// plainer `for sample in list` both work. On Linux it also conforms to this module's stand-in for
/// `NSFastEnumeration`, so an app's own `NSFastEnumerationIterator(list)` bridge compiles
/// unchanged.
open class CMSensorDataList: NSObject, Sequence {
  private let items: [CMRecordedAccelerometerData]

  init(items: [CMRecordedAccelerometerData]) {
    self.items = items
    super.init()
  }

  public func makeIterator() -> IndexingIterator<[CMRecordedAccelerometerData]> {
    items.makeIterator()
  }

  /// The number of samples. An addition to Apple's API.
  public var count: Int { items.count }

  open override var description: String { "<CMSensorDataList \(items.count) samples>" }
}
