// SPDX-License-Identifier: Apache-2.0

// The changes of level a floor counter keeps for steps noted late (see FloorCounter's overview).

/// A change of level that settled without being walked enough to count, kept for steps noted
/// late (``FloorCounter/noteStep(time:)``).
struct UnwalkedChange: Sendable {
  /// The change's moving time (its first and last bins that moved the track), s.
  var start: Double
  var end: Double
  /// The reading at which the change settled (and would have counted, walked), s: the date of
  /// its floors if late steps show it was walked.
  var settlingReadingTime: Double
  /// The change's moving time and the part of it known to be walked, s (the walked share of its
  /// height as a share of that time).
  var totalTime: Double
  var walkedTime: Double
  /// The settled height change, m (positive: up).
  var height: Double
}

/// The last few unwalked changes, in a fixed-size ring (no heap allocation).
struct UnwalkedChangeRing: Sendable {
  /// Eight: short flights with landings between them, a floor every 10–15 s, settle one by one
  /// during the longest hold the riding gate makes (about a minute).
  static let capacity = 8
  private typealias Slot = UnwalkedChange?
  private var slots: (Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot) = (
    nil, nil, nil, nil, nil, nil, nil, nil
  )
  /// Slot `index` (0..<capacity). A homogeneous tuple is laid out as consecutive elements, so
  /// it is read and written through a pointer to its first element.
  private subscript(index: Int) -> UnwalkedChange? {
    get {
      precondition((0..<Self.capacity).contains(index))
      return withUnsafePointer(to: slots) { tuple in
        tuple.withMemoryRebound(to: Slot.self, capacity: Self.capacity) { $0[index] }
      }
    }
    set {
      precondition((0..<Self.capacity).contains(index))
      withUnsafeMutablePointer(to: &slots) { tuple in
        tuple.withMemoryRebound(to: Slot.self, capacity: Self.capacity) { $0[index] = newValue }
      }
    }
  }

  /// Keeps `change` in a free slot, or, when all are taken, in place of the kept change that
  /// ended first (all are on one timeline: a new one empties the ring). The counter takes a
  /// walked change out at the start of each bin, before anything settles in it, so a full ring
  /// at this point holds only changes not yet walked.
  mutating func append(_ change: UnwalkedChange) {
    var oldest = 0
    for index in 0..<Self.capacity {
      guard let kept = self[index] else {
        self[index] = change
        return
      }
      if let current = self[oldest], kept.end < current.end { oldest = index }
    }
    self[oldest] = change
  }

  /// Credits the time from `start` to `end` s (a late step's coverage) to every kept change whose
  /// moving time it overlaps.
  mutating func credit(from start: Double, to end: Double) {
    guard end > start else { return }
    for index in 0..<Self.capacity {
      guard var change = self[index] else { continue }
      let walked = FloorCounter.overlap(start, end, change.start, change.end)
      guard walked > 0 else { continue }
      change.walkedTime = Swift.min(change.totalTime, change.walkedTime + walked)
      self[index] = change
    }
  }

  /// Forgets the kept changes that ended before `oldestEnd` s and are not walked for at least
  /// `fraction` of their time. (A new timeline restarts the level tracking, which empties the
  /// ring.)
  mutating func forgetUnwalked(fraction: Double, endedBefore oldestEnd: Double) {
    for index in 0..<Self.capacity {
      guard let kept = self[index], kept.end < oldestEnd, !kept.isWalked(fraction: fraction)
      else { continue }
      self[index] = nil
    }
  }

  /// Removes and returns the kept change that ended first among those now walked for at least
  /// `fraction` of their time, if any.
  mutating func takeFirstWalked(fraction: Double) -> UnwalkedChange? {
    var first: Int?
    for index in 0..<Self.capacity {
      guard let kept = self[index], kept.isWalked(fraction: fraction) else { continue }
      if let current = first.flatMap({ self[$0] }), current.end <= kept.end { continue }
      first = index
    }
    guard let first else { return nil }
    defer { self[first] = nil }
    return self[first]
  }
}

extension UnwalkedChange {
  /// Whether at least `fraction` of the change, and some of it, is known to be walked.
  func isWalked(fraction: Double) -> Bool {
    walkedTime >= fraction * totalTime && walkedTime > 0
  }
}
