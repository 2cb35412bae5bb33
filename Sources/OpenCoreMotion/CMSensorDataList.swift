// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The samples ``CMSensorRecorder/accelerometerData(from:to:)`` returns, oldest first.
///
/// Apple's list is enumerated with Objective-C fast enumeration; here it is a Swift `Sequence`, so
/// `for case let sample as CMRecordedAccelerometerData in list` (Apple's Swift idiom) and the
/// plainer `for sample in list` both work. On Linux it also conforms to this module's stand-in for
/// `NSFastEnumeration`, so an app's own `NSFastEnumerationIterator(list)` bridge compiles
/// unchanged.
///
/// The samples are made as the list is enumerated, from the recorded values: a 12 h window holds
/// 2.16 million samples, and building one object for each at once took about twice the memory.
open class CMSensorDataList: NSObject, Sequence {
  private let records: [AccelerometerRecord]

  /// An empty list. Apps normally receive lists from ``CMSensorRecorder``.
  public override init() {
    records = []
    super.init()
  }

  init(records: [AccelerometerRecord]) {
    self.records = records
    super.init()
  }

  /// Iterates the samples oldest first, making each one as it goes.
  public struct Iterator: IteratorProtocol {
    private var records: IndexingIterator<[AccelerometerRecord]>

    fileprivate init(_ records: [AccelerometerRecord]) { self.records = records.makeIterator() }

    public mutating func next() -> CMRecordedAccelerometerData? {
      records.next().map { record in
        CMRecordedAccelerometerData(
          acceleration: CMAcceleration(record.acceleration), timestamp: record.timestamp,
          startDate: record.date, identifier: record.identifier)
      }
    }
  }

  public func makeIterator() -> Iterator { Iterator(records) }

  /// The number of samples. An addition to Apple's API.
  public var count: Int { records.count }

  open override var description: String { "<CMSensorDataList \(records.count) samples>" }
}
