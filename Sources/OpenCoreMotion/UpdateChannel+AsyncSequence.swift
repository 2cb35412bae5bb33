// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

extension UpdateChannel {
  /// An async sequence over this channel's deliveries, for a run that `connect` starts with the
  /// sink it is given: the one bounded-sequence builder behind every `…Updates()` sequence (motion
  /// manager, pedometer, activity, altimeter).
  ///
  /// Bounded: a source must never block, and a consumer that falls behind must not grow memory
  /// without limit, so the newest ``MotionUpdateSequence/maximumBufferedUpdates`` updates are kept
  /// and older ones are dropped and counted (``MotionUpdateSequence/droppedCount``). An error the
  /// channel reports ends the sequence and is kept as its ``MotionUpdateSequence/error``; when
  /// `connect` returns an error instead (nothing could be started), the sequence ends at once with
  /// that error. The consumer's leaving (task cancelled, sequence dropped) ends the channel's run.
  func makeSequence(connect: (Sink) -> (any Error)?) -> MotionUpdateSequence<Item> {
    let (stream, continuation) = AsyncStream<ImmutableItem<Item>>.makeStream(
      bufferingPolicy: .bufferingNewest(MotionUpdateSequence<Item>.maximumBufferedUpdates))
    let failure = Locked<(any Error)?>(nil)
    let dropped = Locked(0)
    let sink = Sink.stream(
      yield: {
        if case .dropped = continuation.yield(ImmutableItem($0)) { dropped.withLock { $0 += 1 } }
      },
      finish: { error in
        if let error { failure.withLock { $0 = $0 ?? error } }
        continuation.finish()
      })
    // Not `end()` here: it waits for a delivery in progress, which may be resuming the very task
    // being cancelled (see StreamTermination).
    continuation.onTermination = { _ in StreamTermination.run { self.end() } }
    if let refusal = connect(sink) {
      failure.withLock { $0 = refusal }
      continuation.finish()
    }
    return MotionUpdateSequence(stream: stream, failure: failure, dropped: dropped)
  }
}
