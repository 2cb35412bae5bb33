// SPDX-License-Identifier: Apache-2.0

import Dispatch

/// Where an `AsyncStream`'s `onTermination` work runs when that work may wait for a lock.
///
/// When the task iterating a stream is cancelled, the Swift runtime calls the stream's
/// `onTermination` handler while it holds that task's status lock. Resuming the same task (a
/// `yield` from a delivery thread) needs that lock too. So a handler that waits for a delivery in
/// progress to finish — removing a subscriber from a ``SubscriberFanOut``, stopping a motion
/// manager's updates — deadlocks against a delivery that is yielding to the stream at that moment:
/// the handler waits for the delivery, the delivery waits for the task. (Seen in a test run: the
/// cancelled task of a gesture subscription and the simulator's player thread, both stuck.)
///
/// ``run(_:)`` moves the work to a background queue, so the handler returns at once. Nothing is
/// lost by the delay: a `yield` to a terminated stream is discarded.
package enum StreamTermination {
  /// Runs `work` soon, on a background queue.
  package static func run(_ work: @escaping @Sendable () -> Void) {
    DispatchQueue.global(qos: .utility).async(execute: work)
  }
}
