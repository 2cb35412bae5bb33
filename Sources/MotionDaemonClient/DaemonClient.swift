// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionDaemonProtocol
import MotionSensors

/// A connection to the motion daemon: live streams, history queries, recording and privacy.
///
/// One connection (a Unix socket) carries every request and subscription of the client. Replies
/// and stream messages are handled on the connection's reader thread; stream handlers run there,
/// serially per subscription, and must not block. When the daemon goes away, pending requests
/// fail with ``DaemonError/Code/disconnected``, every subscription gets
/// ``DaemonStreamEvent/disconnected(_:)`` (from the thread that noticed), and the client
/// reconnects in the background (every ``reconnectInterval``) and resubscribes. A stream told
/// `.disconnected` is then told ``DaemonStreamEvent/reconnected`` on the new connection's reader
/// thread, before any other event of that connection: when the daemon answers its new
/// subscription, or just before its first event, whichever comes first. Only such a stream is
/// told `.reconnected`, once for each `.disconnected`; a connection that ends before it brought
/// a waiting stream anything does not tell it `.disconnected` again. A stream subscribed during
/// the reconnection is told `.disconnected` before ``subscribe(_:handler:)`` returns, and before
/// any news of the next connection (see there). So is a stream subscribed when a daemon takes
/// the connection but does not answer the handshake within 0.5 s (stopped, stuck, or slow): the
/// client then reconnects for it as for a daemon that went away.
public final class DaemonClient: @unchecked Sendable {
  // Sendable because all mutable state is in `state` (a Locked); socket I/O is thread-safe.

  /// The daemon's default socket: `$MOTIOND_SOCKET`, else
  /// `$XDG_RUNTIME_DIR/opencoremotion/motiond.sock`.
  public static func defaultSocketPath(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> String {
    DaemonPaths.socketPath(environment: environment)
  }

  /// The Unix socket this client connects, and reconnects, to.
  public let socketPath: String
  /// The name this client gives the daemon, shown by `motionctl status`.
  public let clientName: String
  /// Seconds between reconnection attempts, and at least between two attempts to connect after
  /// one failed (see ``connect(timeout:)``).
  public var reconnectInterval: Double { 0.1 }
  let logger = Logger(label: "opencoremotion.daemon-client")

  struct State {
    var socket: UnixSocket?
    /// The number of the current connection, or of the last one: each handshake that succeeds
    /// counts one. The streams tell a new connection's events from an old one's by it.
    var connection: UInt64 = 0
    var info: DaemonServerInfo?
    var nextRequestID: UInt64 = 0
    var pending: [UInt64: Pending] = [:]
    /// Streams by local id.
    var streams: [UInt64: Stream] = [:]
    /// Wire (request) id → local stream id, for the current connection.
    var wireToStream: [UInt64: UInt64] = [:]
    var nextStreamID: UInt64 = 0

    /// Adds `stream` to the streams a connection subscribes; returns its local id.
    mutating func add(_ stream: Stream) -> UInt64 {
      nextStreamID += 1
      streams[nextStreamID] = stream
      return nextStreamID
    }

    var isClosed = false
    var isReconnecting = false
    /// When (system uptime, s) the last attempt to connect failed, if one did.
    var lastFailedAttempt: Double?
    /// When (system uptime, s) the last stream to join a reconnection under way without an
    /// attempt to connect (see `joinReconnectionUnderWay`) ended, or ends, its pacing pause, if
    /// one joined.
    var lastJoin: Double?
    /// See ``DaemonClient/replyTimeout``.
    var replyTimeout = 30.0
    /// The daemon's last word on motion history authorization (handshake, query, change notice,
    /// or a refusal); `nil` before any.
    var historyAuthorized: Bool?
    /// When ``isHistoryAuthorized`` last tried to connect (boot clock, s).
    var lastAuthorizationConnect = -Double.infinity
    /// Whether ``isHistoryAuthorized`` has a refresh under way on a thread of its own.
    var isRefreshingAuthorization = false
    /// See ``DaemonClient/afterRegistrationForTesting``.
    var afterRegistration: (@Sendable () -> Void)?
    /// See ``DaemonClient/whilePacingForTesting``.
    var whilePacing: (@Sendable () -> Void)?
    /// See ``DaemonClient/onceReconnectedForTesting``.
    var onceReconnected: (@Sendable () -> Void)?
  }

  let state = Locked(State())
  /// Held while a connection is established and while a new stream is registered and subscribed,
  /// so that one connection is made at a time: the reconnect thread and a request's `connect()`
  /// would otherwise each open one, orphan the other's, and subscribe every stream twice (its
  /// handler then gets each sample twice).
  let establishing = NSLock()

  public init(socketPath: String = DaemonClient.defaultSocketPath(), clientName: String? = nil) {
    self.socketPath = socketPath
    self.clientName = clientName ?? "\(ProcessInfo.processInfo.processName) (pid \(getpid()))"
  }

  deinit {
    state.withLock { $0.socket }?.close()
  }

  /// Runs in ``subscribe(_:handler:)`` once the new stream is registered (and subscribed, when
  /// a connection is up), before `subscribe` returns and, for a stream that waits for the
  /// reconnection, before it is told `.disconnected`: for the tests, which make a reconnection
  /// or a source event of the daemon come in that window.
  package var afterRegistrationForTesting: (@Sendable () -> Void)? {
    get { state.withLock { $0.afterRegistration } }
    set { state.withLock { $0.afterRegistration = newValue } }
  }

  /// Runs in ``subscribe(_:handler:)`` when a stream joining the reconnection under way is paced
  /// (see `joinReconnectionUnderWay`): once it is registered, before its pause. For the tests,
  /// which end the other streams in that pause.
  package var whilePacingForTesting: (@Sendable () -> Void)? {
    get { state.withLock { $0.whilePacing } }
    set { state.withLock { $0.whilePacing = newValue } }
  }

  /// Runs on the reconnect thread once the connection it made, or found made by a request, is
  /// up, before the reconnection ends: for the tests, which bring a stream's first events, or a
  /// new stream, in that window.
  package var onceReconnectedForTesting: (@Sendable () -> Void)? {
    get { state.withLock { $0.onceReconnected } }
    set { state.withLock { $0.onceReconnected = newValue } }
  }

  /// Whether a connection is up now.
  public var isConnected: Bool { state.withLock { $0.socket != nil && $0.info != nil } }

  /// The daemon's answer to the last handshake, with the sensors it offers kept current by its
  /// notices of a change (a phone source that turns out to stream no gyroscope).
  public var serverInfo: DaemonServerInfo? { state.withLock { $0.info } }

  /// Closes the connection and stops reconnecting.
  public func close() {
    let (socket, pending) = state.withLock { s -> (UnixSocket?, [Pending]) in
      s.isClosed = true
      defer {
        s.socket = nil
        s.pending = [:]
      }
      return (s.socket, Array(s.pending.values))
    }
    socket?.close()
    for request in pending { request.fail(DaemonError(.disconnected, "the client was closed")) }
  }
}
