// SPDX-License-Identifier: Apache-2.0

import MotionSensors

/// The outgoing frames of one WebSocket connection: a bounded buffer that keeps the newest frames
/// and counts those it drops, so a slow or hidden tab never grows the server's memory.
///
/// The broadcaster ``offer(_:)``s each frame without waiting; the connection's writer task
/// iterates ``frames`` and writes them as fast as the socket accepts them.
package final class DashboardClientQueue: Sendable {
  /// Frames held for a connection before the oldest is dropped (about 0.25 s at 30 frames/s).
  package static let capacity = 8

  package let frames: AsyncStream<String>
  private let continuation: AsyncStream<String>.Continuation
  private let counters = Locked(Counters())

  private struct Counters {
    var sent = 0
    var dropped = 0
  }

  package init(capacity: Int = DashboardClientQueue.capacity) {
    (frames, continuation) = AsyncStream.makeStream(
      of: String.self, bufferingPolicy: .bufferingNewest(capacity))
  }

  /// Queues `frame`; when the buffer is full the oldest frame is dropped and counted.
  package func offer(_ frame: String) {
    switch continuation.yield(frame) {
    case .dropped:
      counters.withLock { $0.dropped += 1 }
    case .enqueued, .terminated:
      break
    @unknown default:
      break
    }
  }

  /// Frames dropped because the connection did not keep up.
  package var droppedFrames: Int { counters.withLock { $0.dropped } }

  /// Notes that the writer sent one frame.
  package func noteSent() { counters.withLock { $0.sent += 1 } }

  /// Frames written so far.
  package var sentFrames: Int { counters.withLock { $0.sent } }

  /// Ends ``frames`` (the connection closed).
  package func finish() { continuation.finish() }
}
