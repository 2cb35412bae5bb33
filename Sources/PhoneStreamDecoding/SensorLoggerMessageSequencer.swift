// SPDX-License-Identifier: Apache-2.0

import MotionSensors

/// Puts Sensor Logger push messages back in `messageId` order.
///
/// The app numbers its messages 0, 1, 2, … within a recording, and HTTP requests can overtake each
/// other. A message that arrives ahead of its turn waits up to ``window`` seconds (wall clock) for
/// the missing ones; after that the gap is given up on. Repeated ids (retries) are dropped.
///
/// Ids come from the network: a negative id or `Int64.max` (whose successor does not exist) is
/// skipped and counted in ``skippedMessageCount``, and at most ``maximumHeldMessages`` messages
/// wait for gaps (beyond that the oldest gap is given up on at once), so memory stays bounded.
package struct SensorLoggerMessageSequencer: Sendable {
  /// How long (wall seconds) an early message waits for the ones before it.
  package var window: Double

  private var expected: Int64?
  private var sessionID: String?
  private var held: [Int64: (batch: SensorLoggerBatch, arrival: Double)] = [:]
  private var recentIDs: Set<Int64> = []
  private var recentOrder: [Int64] = []
  /// How many messages were skipped because their id cannot be sequenced (negative or `Int64.max`).
  package private(set) var skippedMessageCount = 0
  /// The most messages held back waiting for a gap.
  package static let maximumHeldMessages = 256

  package init(window: Double) {
    self.window = window
  }

  /// Whether messages are waiting for a gap to fill.
  package var isHolding: Bool { !held.isEmpty }

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
      if sessionID != nil {
        // Whatever is left of the old recording goes out first, in id order.
        ready += held.keys.sorted().map { held[$0]!.batch }
        sessionChanged = true
      }
      sessionID = session
      expected = nil
      held.removeAll()
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
      ready += held.keys.sorted().map { held[$0]!.batch }
      sessionChanged = true
      expected = nil
      held.removeAll()
      recentIDs.removeAll()
      recentOrder.removeAll()
    }
    guard !recentIDs.contains(id) else { return (ready, sessionChanged) }
    remember(id)

    if expected == nil && id == 0 { expected = 0 }
    guard let next = expected else {
      // The first message seen is not number 0: an earlier one may still be on its way.
      held[id] = (batch, now)
      ready += releaseOverflow()
      return (ready, sessionChanged)
    }
    if id == next {
      ready.append(batch)
      expected = id + 1
      ready += drainConsecutive()
    } else if id > next {
      held[id] = (batch, now)
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

  /// Gives up on the oldest gap while more than ``maximumHeldMessages`` messages wait.
  private mutating func releaseOverflow() -> [SensorLoggerBatch] {
    var ready: [SensorLoggerBatch] = []
    while held.count > Self.maximumHeldMessages, let first = held.keys.min() {
      expected = first
      ready += drainConsecutive()
    }
    return ready
  }

  private mutating func drainConsecutive() -> [SensorLoggerBatch] {
    var ready: [SensorLoggerBatch] = []
    while let next = expected, let entry = held.removeValue(forKey: next) {
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
