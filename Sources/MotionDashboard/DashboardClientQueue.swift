// SPDX-License-Identifier: Apache-2.0

import MotionSensors
import NIOCore

/// The outgoing frames of one WebSocket connection: a bounded buffer that keeps the newest frames
/// and counts those it drops, so a slow or hidden tab never grows the server's memory.
///
/// The broadcaster ``offer(_:)``s each frame without waiting; the connection's writer task
/// iterates ``frames`` and writes them as fast as the socket accepts them.
package final class DashboardClientQueue: Sendable {
  /// Frames held for a connection before the oldest is dropped (about 0.25 s at 30 frames/s).
  package static let capacity = 8

  /// One WebSocket message.
  package enum Frame: Sendable {
    /// JSON text (`hello`, `notice`, and `data` for JSON connections).
    case text(String)
    /// A binary `data` frame (``DashboardBinaryFrame``).
    case binary(ByteBuffer)

    /// The text of a text frame.
    package var text: String? {
      if case .text(let text) = self { return text }
      return nil
    }
  }

  /// How this connection receives `data` frames.
  package let format: DashboardFrameFormat
  package let frames: AsyncStream<Frame>
  private let continuation: AsyncStream<Frame>.Continuation
  private let counters = Locked(Counters())

  private struct Counters {
    var sent = 0
    var dropped = 0
  }

  package init(capacity: Int = DashboardClientQueue.capacity, format: DashboardFrameFormat = .json)
  {
    self.format = format
    (frames, continuation) = AsyncStream.makeStream(
      of: Frame.self, bufferingPolicy: .bufferingNewest(capacity))
  }

  /// Queues `frame`; when the buffer is full the oldest frame is dropped and counted.
  package func offer(_ frame: Frame) {
    switch continuation.yield(frame) {
    case .dropped:
      counters.withLock { $0.dropped += 1 }
    case .enqueued, .terminated:
      break
    @unknown default:
      break
    }
  }

  /// Queues a JSON text message.
  package func offer(_ text: String) { offer(.text(text)) }

  /// Frames dropped because the connection did not keep up.
  package var droppedFrames: Int { counters.withLock { $0.dropped } }

  /// Notes that the writer sent one frame.
  package func noteSent() { counters.withLock { $0.sent += 1 } }

  /// Frames written so far.
  package var sentFrames: Int { counters.withLock { $0.sent } }

  /// Ends ``frames`` (the connection closed).
  package func finish() { continuation.finish() }
}
