// SPDX-License-Identifier: Apache-2.0

/// A jitter buffer that puts samples from a network stream back into timestamp order.
///
/// Phone apps send each sensor's readings in their own batches, and HTTP requests may overtake
/// each other, so samples arrive slightly out of order. The buffer holds each sample until either
/// a sample at least ``holdTime`` seconds newer (stream clock) has arrived or it has waited
/// ``maximumDelay`` seconds (wall clock), then releases it in order. A sample older than one
/// already released is too late to deliver in order and is dropped (and counted).
struct SampleReorderBuffer {
  /// How far (stream seconds) a sample must lag the newest one before it is released; default 0.1.
  var holdTime: Double
  /// The longest a sample waits (wall seconds) when nothing newer arrives; default 0.3.
  var maximumDelay: Double
  /// How many samples arrived too late to be delivered in order.
  private(set) var droppedLateCount = 0
  /// The phone-clock timestamp of the last released sample.
  private(set) var lastReleasedTimestamp = -Double.infinity

  private struct Entry {
    var sample: MotionSample
    var arrival: Double
    var sequence: Int
  }

  private var pending: [Entry] = []
  private var nextSequence = 0

  /// Maps released samples from the phone's clock to the one subscribers get.
  private(set) var clockMapping: StreamClockMapping

  /// Creates a buffer; `clock` chooses the clock of released samples (ordering always uses the
  /// phone's own times).
  init(holdTime: Double = 0.1, maximumDelay: Double = 0.3, clock: PhoneStreamClock = .phone) {
    self.holdTime = holdTime
    self.maximumDelay = maximumDelay
    self.clockMapping = StreamClockMapping(clock: clock)
  }

  /// Whether samples are waiting.
  var isEmpty: Bool { pending.isEmpty }

  /// Adds samples that arrived at wall time `now`.
  mutating func insert(_ samples: [MotionSample], now: Double) {
    if let newest = samples.map(\.timestamp).max() {
      clockMapping.observe(newestStreamTime: newest, arrival: BootClock.now)
    }
    for sample in samples {
      guard sample.timestamp >= lastReleasedTimestamp else {
        droppedLateCount += 1
        continue
      }
      pending.append(Entry(sample: sample, arrival: now, sequence: nextSequence))
      nextSequence += 1
    }
    pending.sort { ($0.sample.timestamp, $0.sequence) < ($1.sample.timestamp, $1.sequence) }
  }

  /// Releases, in timestamp order, every sample that is due at wall time `now` (all of them when
  /// `flushAll`). Samples with equal timestamps and disjoint sensors are merged into one.
  mutating func release(now: Double, flushAll: Bool = false) -> [MotionSample] {
    guard let newest = pending.last?.sample.timestamp else { return [] }
    var cutoff = flushAll ? newest : newest - holdTime
    if !flushAll {
      for entry in pending where entry.arrival + maximumDelay <= now {
        cutoff = max(cutoff, entry.sample.timestamp)
      }
    }
    let count = pending.firstIndex { $0.sample.timestamp > cutoff } ?? pending.count
    guard count > 0 else { return [] }
    var released: [MotionSample] = []
    released.reserveCapacity(count)
    for entry in pending[0..<count] {
      if let last = released.last, last.timestamp == entry.sample.timestamp,
        last.sensors.isDisjoint(with: entry.sample.sensors), last.groundTruth == nil
      {
        released[released.count - 1] = Self.merge(last, entry.sample)
      } else {
        released.append(entry.sample)
      }
    }
    pending.removeFirst(count)
    lastReleasedTimestamp = released.last!.timestamp
    if clockMapping.clock == .phone { return released }
    return released.map { sample in
      var mapped = sample
      mapped.timestamp = clockMapping.map(sample.timestamp)
      return mapped
    }
  }

  /// A notice to pass on when samples were dropped for arriving late, or `nil`.
  ///
  /// Reported the first time and then each time the total reaches the next power of ten, so a
  /// persistently disordered stream is visible without flooding subscribers.
  mutating func lateDropNotice(source: String) -> SourceFailure? {
    guard droppedLateCount >= nextDropReport else { return nil }
    while nextDropReport <= droppedLateCount { nextDropReport *= 10 }
    return SourceFailure(
      .other,
      "\(source): \(droppedLateCount) sample(s) so far arrived after newer ones had been delivered and were "
        + "dropped to keep timestamp order")
  }

  private var nextDropReport = 1

  /// The events due at wall time `now`: the released samples (see ``release(now:flushAll:)``),
  /// then a notice naming `source` if one is due (see ``lateDropNotice(source:)``).
  mutating func releaseEvents(now: Double, source: String) -> [SourceEvent] {
    var events = release(now: now).map(SourceEvent.sample)
    if let notice = lateDropNotice(source: source) {
      events.append(.failure(notice))
    }
    return events
  }

  /// Forgets everything, including the last released time (after the stream's clock restarted).
  mutating func reset() {
    pending.removeAll()
    lastReleasedTimestamp = -.infinity
  }

  private static func merge(_ a: MotionSample, _ b: MotionSample) -> MotionSample {
    var merged = a
    merged.accelerometer = a.accelerometer ?? b.accelerometer
    merged.gyroscope = a.gyroscope ?? b.gyroscope
    merged.magnetometer = a.magnetometer ?? b.magnetometer
    merged.pressure = a.pressure ?? b.pressure
    merged.temperature = a.temperature ?? b.temperature
    return merged
  }
}
