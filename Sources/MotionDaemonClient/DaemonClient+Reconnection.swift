// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionDaemonProtocol

extension DaemonClient {
  /// Ends the connection on `socket`, if it is still the current one: its requests fail, its
  /// streams get `.disconnected` (those told so already and told nothing since do not), and a
  /// reconnection starts when streams want one. The state changes at once; the rest follows on
  /// this thread, or `inBackground` on a thread of its own: a writer whose write failed may be
  /// inside a request's completion or a stream's handler, and failing that request again there
  /// would take its lock a second time.
  func connectionLost(_ socket: UnixSocket, inBackground: Bool = false) {
    let lost = state.withLock {
      s -> (pending: [Pending], streams: [Stream], connection: UInt64, reconnects: Bool) in
      guard s.socket === socket else { return ([], [], 0, false) }
      s.socket = nil
      let pending = Array(s.pending.values)
      s.pending = [:]
      s.wireToStream = [:]
      let reconnect = !s.isClosed && !s.streams.isEmpty && !s.isReconnecting
      if reconnect { s.isReconnecting = true }
      return (pending, Array(s.streams.values), s.connection, reconnect)
    }
    let (pending, streams, connection, shouldReconnect) = lost
    socket.close()
    guard !pending.isEmpty || !streams.isEmpty else { return }
    let tell: @Sendable () -> Void = { [self] in
      for request in pending {
        request.fail(DaemonError(.disconnected, "the motion daemon went away"))
      }
      for stream in streams { stream.connectionEnded(connection, "the motion daemon went away") }
      if shouldReconnect { startReconnecting() }
    }
    if inBackground { Thread(block: tell).start() } else { tell() }
  }

  private func startReconnecting() {
    let thread = Thread { [weak self] in
      while let self {
        // One locked step: a stream registered between a check and a separate clearing of the
        // flag (`waitForReconnection` joins while the flag is set) would wait with nothing
        // reconnecting.
        let ends = self.state.withLock { s -> Bool in
          guard s.isClosed || s.streams.isEmpty else { return false }
          s.isReconnecting = false
          return true
        }
        if ends { return }
        // Through `connect`: a request may have connected meanwhile, and its connection serves.
        if (try? self.connect(timeout: 2)) != nil {
          self.onceReconnectedForTesting?()
          // The new connection may have ended already (before or after `connect` returned), and
          // its `connectionLost`, seeing this thread still reconnecting, left the reconnection to
          // it: the reconnection is over only if a connection is up now, else this thread tries
          // again. Clearing the flag for a dead connection ended reconnection for good.
          // The streams are told `.reconnected` by the connection itself, before anything else
          // of it reaches them (see `Stream.owesReconnection`), not from here.
          let isUp = self.state.withLock { s -> Bool in
            guard s.socket != nil else { return false }
            s.isReconnecting = false
            return true
          }
          if isUp {
            self.logger.info("reconnected to the motion daemon at \(self.socketPath)")
            return
          }
        }
        Thread.sleep(forTimeInterval: self.reconnectInterval)
      }
    }
    thread.name = "motiond-client-reconnect"
    thread.start()
  }

  /// Starts reconnecting when there is no connection, streams want one, and no reconnection is
  /// under way already; returns whether it started one.
  @discardableResult
  func reconnectIfNeeded() -> Bool {
    let start = state.withLock { s -> Bool in
      guard s.socket == nil, !s.isClosed, !s.streams.isEmpty, !s.isReconnecting else {
        return false
      }
      s.isReconnecting = true
      return true
    }
    if start { startReconnecting() }
    return start
  }
}
