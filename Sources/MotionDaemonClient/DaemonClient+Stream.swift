// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

extension DaemonClient {
  /// One subscription; `deliveryLock` makes `cancel()` wait for a running handler.
  final class Stream: @unchecked Sendable {
    // Sendable because `isCancelled`, `heldAdvisory`, `owesReconnection` and `lostConnection` are
    // guarded by `deliveryLock`, and `wireID` is a Locked.
    let request: DaemonStreamRequest
    let handler: @Sendable (DaemonStreamEvent) -> Void
    let deliveryLock = NSRecursiveLock()
    var isCancelled = false
    /// The `.disconnected` that a stream subscribed while the client reconnects has yet to be
    /// told (see ``DaemonClient/subscribe(_:handler:)``). Held here, not told after `subscribe`
    /// releases `establishing`: a connection made in that gap delivers `.reconnected` and samples
    /// first, and the late advisory then said the daemon was gone while samples came.
    private var heldAdvisory: String?
    /// Whether the handler was told `.disconnected` and not yet `.reconnected`. The owed
    /// `.reconnected` is told by the connection that brings the stream back, on its reader
    /// thread: when the daemon answers the stream's Subscribe, or just before the first event of
    /// that connection, whichever comes first. The reconnect thread used to tell every stream
    /// once its `connect` returned, while the new connection's reader was already handing out
    /// samples (which then came first), and told streams subscribed on the new connection too,
    /// which had never been told `.disconnected`.
    private var owesReconnection = false
    /// The number of the last connection (`State.connection`) the handler was told it lost, 0
    /// for none. An event of that connection or an earlier one, still on its way from a reader
    /// thread (a failed write ends a connection while its reader hands out a batch), is dropped:
    /// it would come after `.disconnected`, or pay the owed `.reconnected` with no connection up.
    private var lostConnection: UInt64 = 0
    /// The stream's id on the current connection (its Subscribe's request id). A lock of its
    /// own, taken last and never held while taking another: `send` sets it under the client's
    /// `state`, and a handler (under `deliveryLock`) may cancel its stream, which takes `state`;
    /// were it guarded by `deliveryLock`, those two would take the same two locks in opposite
    /// orders.
    let wireID = Locked<UInt64>(0)
    init(request: DaemonStreamRequest, handler: @escaping @Sendable (DaemonStreamEvent) -> Void) {
      self.request = request
      self.handler = handler
    }

    /// Tells `event`, which connection number `connection` brought, after what the stream is
    /// owed first: the held `.disconnected`, then `.reconnected`.
    func deliver(_ event: DaemonStreamEvent, from connection: UInt64) {
      deliveryLock.lock()
      defer { deliveryLock.unlock() }
      guard isCurrent(connection) else { return }
      handler(event)
    }

    /// The daemon answered the stream's Subscribe on connection `connection` (acknowledged or
    /// refused): the stream is back on a connection, and told so if it is owed that.
    func subscriptionAnswered(on connection: UInt64) {
      deliveryLock.withLock { _ = isCurrent(connection) }
    }

    /// Whether an event of connection `connection` is to be told (not cancelled, not of a
    /// connection already told lost), once the held `.disconnected` and the owed `.reconnected`
    /// are told. Under `deliveryLock`.
    private func isCurrent(_ connection: UInt64) -> Bool {
      deliverHeldAdvisory()
      guard !isCancelled, connection > lostConnection else { return false }
      if owesReconnection {
        owesReconnection = false
        handler(.reconnected)
      }
      return true
    }

    /// Tells `.disconnected(message)` for the end of connection `connection`, unless the handler
    /// was told `.disconnected` already and nothing of a connection since (one that ended before
    /// it brought the stream anything says nothing new).
    func connectionEnded(_ connection: UInt64, _ message: String) {
      deliveryLock.lock()
      defer { deliveryLock.unlock() }
      deliverHeldAdvisory()
      guard !isCancelled, connection > lostConnection else { return }
      lostConnection = connection
      guard !owesReconnection else { return }
      owesReconnection = true
      handler(.disconnected(message))
    }

    /// Keeps `.disconnected(message)` for ``deliverHeldAdvisory()``, or for the first event that
    /// comes sooner, which it then precedes.
    func holdAdvisory(_ message: String) {
      deliveryLock.withLock { heldAdvisory = message }
    }

    /// Forgets the held `.disconnected`, for a stream that goes on without it.
    func dropHeldAdvisory() {
      deliveryLock.withLock { heldAdvisory = nil }
    }

    /// Tells the held `.disconnected`, if it has not been told yet; `.reconnected` is then owed.
    func deliverHeldAdvisory() {
      deliveryLock.lock()
      defer { deliveryLock.unlock() }
      guard let message = heldAdvisory else { return }
      heldAdvisory = nil
      guard !isCancelled else { return }
      owesReconnection = true
      handler(.disconnected(message))
    }
  }
}
