// SPDX-License-Identifier: Apache-2.0

import MotionSensors

/// Puts Sensor Logger push messages back in `messageId` order.
///
/// The app numbers its messages 0, 1, 2, … within a recording, and HTTP requests can overtake each
/// other. A message that arrives ahead of its turn waits up to ``window`` seconds (wall clock) for
/// the missing ones; after that the gap is given up on. Repeated ids (retries) are dropped.
///
/// Ids come from the network: a negative id or `Int64.max` (whose successor does not exist) is
/// skipped and counted in ``skippedMessageCount``. What waits for gaps is bounded twice: by
/// message count (``maximumHeldMessages``) and by the readings the held messages carry
/// (``maximumHeldReadings``), since one message may hold anything from one reading to about
/// 20 000. When either bound is passed, the oldest gap is given up on at once, as if its window
/// had ended: the held messages after it go on in order (none is lost, a straggler that comes
/// later is still passed on) and are counted in ``earlyReleasedMessageCount``.
package struct SensorLoggerMessageSequencer: Sendable {
  /// How long (wall seconds) an early message waits for the ones before it.
  package var window: Double
  /// The most readings (summed over the held messages) that may wait for gaps; see
  /// ``defaultMaximumHeldReadings``.
  package let maximumHeldReadings: Int

  private var expected: Int64?
  private var sessionID: String?
  private var held: [Int64: (batch: SensorLoggerBatch, arrival: Double)] = [:]
  /// The readings in `held`, kept with it so the budget costs no pass over the messages.
  private var heldReadings = 0
  private var recentIDs: Set<Int64> = []
  private var recentOrder: [Int64] = []
  /// How many messages were skipped because their id cannot be sequenced (negative or `Int64.max`).
  package private(set) var skippedMessageCount = 0
  /// How many held messages were passed on before their window ended because
  /// ``maximumHeldMessages`` or ``maximumHeldReadings`` would otherwise have been passed.
  package private(set) var earlyReleasedMessageCount = 0
  /// The most messages held back waiting for a gap.
  package static let maximumHeldMessages = 256
  /// The default reading budget: 200 000 readings.
  ///
  /// A phone streaming five sensors at 500 Hz sends 2 500 readings a second, so a 0.5 s window
  /// needs about 1 250 held; the budget is 160 times that (80 s of such a stream, or ten of the
  /// largest bodies ``SensorLoggerBatch/maximumContainers`` lets through), so a phone that sends
  /// a backlog in a burst after a network stall stays well inside it. A decoded reading takes
  /// about 220 bytes (its name and a dictionary of values; measured in a debug build), so the
  /// budget keeps what a peer can park here near 45 MB, where the message cap alone allowed 256
  /// bodies of up to 20 000 readings each (5 million readings, over a gigabyte).
  package static let defaultMaximumHeldReadings = 200_000

  /// Creates a sequencer with a reorder `window` (wall seconds) and a budget of held readings.
  package init(window: Double, maximumHeldReadings: Int = Self.defaultMaximumHeldReadings) {
    self.window = window
    self.maximumHeldReadings = max(0, maximumHeldReadings)
  }

  /// Whether messages are waiting for a gap to fill.
  package var isHolding: Bool { !held.isEmpty }
  /// How many messages wait for a gap.
  package var heldMessageCount: Int { held.count }
  /// How many readings the waiting messages carry (at most ``maximumHeldReadings`` between calls).
  package var heldReadingCount: Int { heldReadings }

  /// Takes a message that arrived at wall time `now`; returns the messages now ready, in order.
  /// `sessionChanged` is set when the message starts a new recording.
  package mutating func accept(
    _ batch: SensorLoggerBatch, now: Double
  ) -> (
    ready: [SensorLoggerBatch], sessionChanged: Bool
  ) {
    var ready: [SensorLoggerBatch] = []
    var sessionChanged = false
    if let session = batch.sessionID, session != sessionID {
      // Whatever is left of the old recording goes out first, in id order, whether it had a
      // session id or not (messages without one were dropped here, uncounted, until 2026-11-27).
      ready += takeAllHeld()
      if sessionID != nil { sessionChanged = true }
      sessionID = session
      expected = nil
      recentIDs.removeAll()
      recentOrder.removeAll()
    }
    guard let id = batch.messageID else { return (ready + [batch], sessionChanged) }
    guard id >= 0, id < Int64.max else {
      skippedMessageCount += 1
      return (ready, sessionChanged)
    }
    if batch.sessionID == nil, id == 0, let next = expected, next > 0 {
      // Without session ids, a counter back at 0 is the only sign of a new recording.
      ready += takeAllHeld()
      sessionChanged = true
      expected = nil
      recentIDs.removeAll()
      recentOrder.removeAll()
    }
    guard !recentIDs.contains(id) else { return (ready, sessionChanged) }
    remember(id)

    if expected == nil && id == 0 { expected = 0 }
    guard let next = expected else {
      // The first message seen is not number 0: an earlier one may still be on its way.
      hold(batch, id: id, now: now)
      ready += releaseOverflow()
      return (ready, sessionChanged)
    }
    if id == next {
      ready.append(batch)
      expected = id + 1
      ready += drainConsecutive()
    } else if id > next {
      hold(batch, id: id, now: now)
      ready += releaseOverflow()
    } else {
      ready.append(batch)  // Late after its gap was given up on: deliver what is still in time.
    }
    return (ready, sessionChanged)
  }

  /// Gives up on gaps older than the window at wall time `now` (all gaps when `flushAll`).
  package mutating func release(now: Double, flushAll: Bool = false) -> [SensorLoggerBatch] {
    var ready: [SensorLoggerBatch] = []
    while let oldest = held.values.map(\.arrival).min(), flushAll || oldest + window <= now {
      let first = held.keys.min()!
      expected = first
      ready += drainConsecutive()
    }
    return ready
  }

  /// Gives up on the oldest gap while more than ``maximumHeldMessages`` messages, or more than
  /// ``maximumHeldReadings`` readings, wait; counts what goes on early.
  private mutating func releaseOverflow() -> [SensorLoggerBatch] {
    var ready: [SensorLoggerBatch] = []
    while held.count > Self.maximumHeldMessages || heldReadings > maximumHeldReadings,
      let first = held.keys.min()
    {
      expected = first
      let drained = drainConsecutive()
      earlyReleasedMessageCount += drained.count
      ready += drained
    }
    return ready
  }

  /// Puts a message aside until its gap fills, keeping the reading total in step (an id held
  /// again, once it has left the recent ids, replaces the earlier message).
  private mutating func hold(_ batch: SensorLoggerBatch, id: Int64, now: Double) {
    if let replaced = held.updateValue((batch, now), forKey: id) {
      heldReadings -= replaced.batch.readings.count
    }
    heldReadings += batch.readings.count
  }

  /// Hands back every held message in id order and holds nothing after.
  private mutating func takeAllHeld() -> [SensorLoggerBatch] {
    let all = held.keys.sorted().map { held[$0]!.batch }
    held.removeAll()
    heldReadings = 0
    return all
  }

  private mutating func drainConsecutive() -> [SensorLoggerBatch] {
    var ready: [SensorLoggerBatch] = []
    while let next = expected, let entry = held.removeValue(forKey: next) {
      heldReadings -= entry.batch.readings.count
      ready.append(entry.batch)
      expected = next + 1
    }
    return ready
  }

  private mutating func remember(_ id: Int64) {
    recentIDs.insert(id)
    recentOrder.append(id)
    if recentOrder.count > 1_024 {
      recentIDs.remove(recentOrder.removeFirst())
    }
  }
}
