// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Recorded samples (the sensor recorder's accelerometer, the altitude history): a ring of at most
/// ``capacity`` records in time order; the oldest are overwritten first. Memory grows with what is
/// actually recorded, never beyond the capacity.
struct DatedRecordBuffer<Record: DatedRecord>: Sendable {
  /// The most samples kept.
  let capacity: Int
  private var storage: [Record] = []
  /// Index in `storage` of the oldest record once the ring is full.
  private var head = 0

  init(capacity: Int) {
    self.capacity = max(1, capacity)
  }

  var count: Int { storage.count }

  /// The `index`-th oldest record.
  private func record(at index: Int) -> Record {
    storage[(head + index) % storage.count]
  }

  /// Adds a record (dates non-decreasing), overwriting the oldest when full.
  mutating func append(_ record: Record) {
    if storage.count < capacity {
      storage.append(record)
    } else {
      storage[head] = record
      head = (head + 1) % capacity
    }
  }

  /// Moves every record's date by `seconds` (the system clock was set: ``WallClockStepWatch``).
  mutating func shiftDates(by seconds: Double) {
    for index in storage.indices { storage[index].date.addTimeInterval(seconds) }
  }

  /// Drops the records dated before `limit`.
  mutating func removeRecords(before limit: Date) {
    let keepFrom = firstIndex { $0.date >= limit }
    guard keepFrom > 0 else { return }
    let kept = (keepFrom..<storage.count).map(record(at:))
    storage = kept
    head = 0
  }

  /// The records dated in `start ... end`, oldest first.
  func records(from start: Date, to end: Date) -> [Record] {
    guard start <= end else { return [] }
    let lower = firstIndex { $0.date >= start }
    let upper = firstIndex { $0.date > end }
    guard lower < upper else { return [] }
    return (lower..<upper).map(record(at:))
  }

  /// The date of the oldest record.
  var oldestDate: Date? { storage.isEmpty ? nil : record(at: 0).date }

  private func firstIndex(where predicate: (Record) -> Bool) -> Int {
    var low = 0
    var high = storage.count
    while low < high {
      let middle = low + (high - low) / 2
      if predicate(record(at: middle)) { high = middle } else { low = middle + 1 }
    }
    return low
  }
}
