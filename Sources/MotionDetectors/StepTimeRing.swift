// SPDX-License-Identifier: Apache-2.0

/// A first-in, first-out ring of step times with a capacity fixed at `init`.
struct StepTimeRing: Sendable {
  private var storage: [Double]
  private var head = 0
  private(set) var count = 0

  init(capacity: Int) {
    storage = [Double](repeating: 0, count: Swift.max(1, capacity))
  }

  var isFull: Bool { count == storage.count }

  var first: Double? {
    count == 0 ? nil : storage[head]
  }

  var last: Double? {
    count == 0 ? nil : storage[(head + count - 1) % storage.count]
  }

  /// Appends `time`; false (and nothing changes) when the ring is full.
  mutating func append(_ time: Double) -> Bool {
    guard !isFull else { return false }
    storage[(head + count) % storage.count] = time
    count += 1
    return true
  }

  mutating func popFirst() -> Double? {
    guard count > 0 else { return nil }
    let time = storage[head]
    head = (head + 1) % storage.count
    count -= 1
    return time
  }

  mutating func removeAll() {
    head = 0
    count = 0
  }
}
