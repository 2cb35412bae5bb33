// SPDX-License-Identifier: Apache-2.0

/// Puts Sensor Logger push messages back in `messageId` order.
///
/// The app numbers its messages 0, 1, 2, … within a recording, and HTTP requests can overtake each
/// other. A message that arrives ahead of its turn waits up to ``window`` seconds (wall clock) for
/// the missing ones; after that the gap is given up on. Repeated ids (retries) are dropped.
struct SensorLoggerMessageSequencer {
  /// How long (wall seconds) an early message waits for the ones before it.
  var window: Double

  private var expected: Int64?
  private var sessionID: String?
  private var held: [Int64: (batch: SensorLoggerBatch, arrival: Double)] = [:]
  private var recentIDs: Set<Int64> = []
  private var recentOrder: [Int64] = []

  init(window: Double) {
    self.window = window
  }

  /// Whether messages are waiting for a gap to fill.
  var isHolding: Bool { !held.isEmpty }

  /// Takes a message that arrived at wall time `now`; returns the messages now ready, in order.
  /// `sessionChanged` is set when the message starts a new recording.
  mutating func accept(_ batch: SensorLoggerBatch, now: Double) -> (
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
      return (ready, sessionChanged)
    }
    if id == next {
      ready.append(batch)
      expected = id + 1
      ready += drainConsecutive()
    } else if id > next {
      held[id] = (batch, now)
    } else {
      ready.append(batch)  // Late after its gap was given up on: deliver what is still in time.
    }
    return (ready, sessionChanged)
  }

  /// Gives up on gaps older than the window at wall time `now` (all gaps when `flushAll`).
  mutating func release(now: Double, flushAll: Bool = false) -> [SensorLoggerBatch] {
    var ready: [SensorLoggerBatch] = []
    while let oldest = held.values.map(\.arrival).min(), flushAll || oldest + window <= now {
      let first = held.keys.min()!
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
