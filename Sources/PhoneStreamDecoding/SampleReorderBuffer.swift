// SPDX-License-Identifier: Apache-2.0

import MotionSensors

/// A jitter buffer that puts samples from a network stream back into timestamp order.
///
/// Phone apps send each sensor's readings in their own batches, and HTTP requests may overtake
/// each other, so samples arrive slightly out of order. The buffer holds each sample until either
/// a sample at least ``holdTime`` seconds newer (stream clock) has arrived or it has waited
/// ``maximumDelay`` seconds (wall clock), then releases it in order. A sample older than one
/// already released is too late to deliver in order and is dropped (and counted).
///
/// Timestamps come from the network, so one sample must not be able to move the buffer's clock:
/// a sample more than ``maximumLead`` seconds ahead of the newest accepted one is dropped (and
/// counted) instead of being released, which would make every later genuine sample "late". If
/// ``resynchronisationCount`` samples in a row lie that far from the buffer's timeline (ahead, or
/// behind what was released), the stream's clock really jumped (or the buffer's first sample was
/// the odd one): the buffer drops what it holds and follows the new timeline, with a fresh clock
/// mapping. Non-finite timestamps are dropped and counted. With ``maximumClockDistance`` set, a
/// sample whose time lies further than that from its arrival on the current clock mapping is
/// far off too (dropped, counted, and part of the run that makes the buffer follow a new timeline),
/// so one forged reading cannot shift the mapping, and with it every later timestamp, for good.
///
/// The lead a sample may have grows with the wall time since the newest accepted one arrived (a
/// phone that paused, or a new recording, resumes ahead by about that much), and nothing but a
/// confirmed new timeline (a resynchronisation) forgets what was delivered: the timeline, the
/// limits and the clock mapping carry over from one recording to the next, since anyone on the
/// network can announce a new recording. On ``PhoneStreamClock/receiverBoot`` the delivered
/// timestamps never decrease, even across a resynchronisation (samples mapped before the last
/// delivered one are dropped and counted as late); on ``PhoneStreamClock/phone`` they follow the
/// phone's clock, so only a resynchronisation can take them back.
package struct SampleReorderBuffer: Sendable {
  /// How far (stream seconds) a sample must lag the newest one before it is released; default 0.1.
  package var holdTime: Double
  /// The longest a sample waits (wall seconds) when nothing newer arrives; default 0.3.
  package var maximumDelay: Double
  /// How far (stream seconds) a sample may lead the newest accepted one, beyond the wall time
  /// since that one arrived; default 10 s.
  package var maximumLead = 10.0
  /// How far (seconds) a sample's mapped time may lie from its arrival (see
  /// ``StreamClockMapping/maximumDistance``); default `nil`: not checked.
  package var maximumClockDistance: Double? {
    get { clockMapping.maximumDistance }
    set { clockMapping.maximumDistance = newValue }
  }
  /// How many consecutive far-off samples make the buffer follow their timeline; default 20.
  package var resynchronisationCount = 20
  /// How many samples arrived too late to be delivered in order.
  package private(set) var droppedLateCount = 0
  /// How many samples were dropped for a timestamp far ahead of the stream or not finite.
  package private(set) var droppedImplausibleCount = 0
  /// How many times the buffer followed a new timeline (see the type's description).
  package private(set) var resynchronisations = 0
  /// The phone-clock timestamp of the last released sample.
  package private(set) var lastReleasedTimestamp = -Double.infinity
  /// The delivered (mapped) timestamp of the last released sample: on
  /// ``PhoneStreamClock/receiverBoot`` no later sample is delivered before it, whatever happens to
  /// the clock mapping; on ``PhoneStreamClock/phone`` it equals ``lastReleasedTimestamp``.
  package private(set) var lastDeliveredTimestamp = -Double.infinity
  /// The newest phone-clock timestamp accepted, `nil` before the first.
  private var newestAccepted: Double?
  /// The wall time (`now` of ``insert(_:now:)``) at which `newestAccepted` arrived.
  private var newestAcceptedArrival: Double?
  /// How many samples in a row were far from the buffer's timeline.
  private var farOffRun = 0

  private struct Entry: Sendable {
    var sample: MotionSample
    var arrival: Double
    var sequence: Int
  }

  private var pending: [Entry] = []
  private var nextSequence = 0

  /// Maps released samples from the phone's clock to the one subscribers get.
  package private(set) var clockMapping: StreamClockMapping

  /// Creates a buffer; `clock` chooses the clock of released samples (ordering always uses the
  /// phone's own times).
  package init(holdTime: Double = 0.1, maximumDelay: Double = 0.3, clock: PhoneStreamClock = .phone)
  {
    self.holdTime = holdTime
    self.maximumDelay = maximumDelay
    self.clockMapping = StreamClockMapping(clock: clock)
  }

  /// Whether samples are waiting.
  package var isEmpty: Bool { pending.isEmpty }

  /// Adds samples that arrived at wall time `now`.
  package mutating func insert(_ samples: [MotionSample], now: Double) {
    var newestInserted: Double?
    let arrival = BootClock.now
    for sample in samples {
      let time = sample.timestamp
      guard time.isFinite else {
        droppedImplausibleCount += 1
        continue
      }
      let offClock = !clockMapping.isPlausible(time, arrival: arrival)
      let lead = maximumLead + Self.elapsed(since: newestAcceptedArrival, now: now)
      let farAhead = offClock || (newestAccepted.map { time - $0 > lead } ?? false)
      let farBehind = lastReleasedTimestamp - time > maximumLead
      if farAhead || farBehind {
        farOffRun += 1
        if farOffRun < resynchronisationCount {
          if farAhead { droppedImplausibleCount += 1 } else { droppedLateCount += 1 }
          continue
        }
        resynchronise()
        newestInserted = nil  // The old timeline's samples are gone; map from the new one.
      } else {
        farOffRun = 0
        guard time >= lastReleasedTimestamp else {
          droppedLateCount += 1
          continue
        }
      }
      if time >= newestAccepted ?? -.infinity {
        newestAccepted = time
        newestAcceptedArrival = now
      }
      newestInserted = max(newestInserted ?? time, time)
      pending.append(Entry(sample: sample, arrival: now, sequence: nextSequence))
      nextSequence += 1
    }
    if let newestInserted {
      clockMapping.observe(newestStreamTime: newestInserted, arrival: arrival)
    }
    pending.sort { ($0.sample.timestamp, $0.sequence) < ($1.sample.timestamp, $1.sequence) }
  }

  /// Wall seconds from `arrival` to `now`: 0 without an arrival, or when the clock went back or
  /// is not finite.
  private static func elapsed(since arrival: Double?, now: Double) -> Double {
    guard let arrival else { return 0 }
    let elapsed = now - arrival
    return elapsed.isFinite && elapsed > 0 ? elapsed : 0
  }

  /// Releases, in timestamp order, every sample that is due at wall time `now` (all of them when
  /// `flushAll`). Samples with equal timestamps and disjoint sensors are merged into one.
  package mutating func release(now: Double, flushAll: Bool = false) -> [MotionSample] {
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
    if clockMapping.clock == .phone {
      lastDeliveredTimestamp = lastReleasedTimestamp
      return released
    }
    // Mapped times increase within one mapping (the offset only moves forward); after a
    // resynchronisation the new mapping may start before what was delivered on the old one.
    var delivered: [MotionSample] = []
    delivered.reserveCapacity(released.count)
    for sample in released {
      var mapped = sample
      mapped.timestamp = clockMapping.map(sample.timestamp)
      guard mapped.timestamp >= lastDeliveredTimestamp else {
        droppedLateCount += 1
        continue
      }
      lastDeliveredTimestamp = mapped.timestamp
      delivered.append(mapped)
    }
    return delivered
  }

  /// A notice to pass on when samples were dropped for arriving late, or `nil`.
  ///
  /// Reported the first time and then each time the total reaches the next power of ten, so a
  /// persistently disordered stream is visible without flooding subscribers.
  package mutating func lateDropNotice(source: String) -> SourceFailure? {
    guard lateDropReports.isDue(total: droppedLateCount) else { return nil }
    return SourceFailure(
      .other,
      "\(source): \(droppedLateCount) sample(s) so far arrived after newer ones had been delivered and were "
        + "dropped to keep timestamp order", isFatal: false)
  }

  /// A notice when samples were dropped for implausible timestamps (far ahead of the stream or
  /// not finite), or `nil`; reported at the same powers of ten as ``lateDropNotice(source:)``.
  package mutating func implausibleDropNotice(source: String) -> SourceFailure? {
    guard implausibleDropReports.isDue(total: droppedImplausibleCount) else { return nil }
    return SourceFailure(
      .malformedData,
      "\(source): \(droppedImplausibleCount) sample(s) so far had a timestamp far ahead of the stream "
        + "(more than \(maximumLead) s), far from the stream's clock, out of range or not a number, "
        + "and were dropped", isFatal: false)
  }

  /// Counts `count` samples that the caller dropped for an implausible time before inserting
  /// (reported with the buffer's own, see ``implausibleDropNotice(source:)``).
  package mutating func countImplausible(_ count: Int) {
    droppedImplausibleCount += max(0, count)
  }

  private var lateDropReports = PowerOfTenReports()
  private var implausibleDropReports = PowerOfTenReports()

  /// Follows a new timeline: what is pending is dropped (counted as late) and the released time
  /// forgotten, so the stream goes on from the far-off samples. On
  /// ``PhoneStreamClock/receiverBoot`` the delivered time is kept (``lastDeliveredTimestamp``).
  private mutating func resynchronise() {
    droppedLateCount += pending.count
    pending.removeAll()
    lastReleasedTimestamp = -.infinity
    if clockMapping.clock == .phone { lastDeliveredTimestamp = -.infinity }
    newestAccepted = nil
    newestAcceptedArrival = nil
    farOffRun = 0
    resynchronisations += 1
    clockMapping.reset()
  }

  /// The events due at wall time `now`: the released samples (see ``release(now:flushAll:)``),
  /// then a notice naming `source` if one is due (see ``lateDropNotice(source:)``).
  package mutating func releaseEvents(now: Double, source: String) -> [SourceEvent] {
    var events = release(now: now).map(SourceEvent.sample)
    if let notice = lateDropNotice(source: source) {
      events.append(.failure(notice))
    }
    if let notice = implausibleDropNotice(source: source) {
      events.append(.failure(notice))
    }
    return events
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
