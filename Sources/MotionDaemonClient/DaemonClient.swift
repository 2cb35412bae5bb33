// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionDaemonProtocol
import MotionSensors
import SwiftProtobuf

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
  private let logger = Logger(label: "opencoremotion.daemon-client")

  /// A request waiting for its reply (or replies). Completes exactly once: by its last reply or
  /// by a failure (disconnection, close), whichever comes first.
  private final class Pending: @unchecked Sendable {
    // Sendable because `isDone` is guarded by `lock`, and the callbacks run under it.
    /// Returns true when the request is complete.
    private let onMessage: (WireServerMessage) -> Bool
    private let onFailure: (DaemonError) -> Void
    private let lock = NSLock()
    private var isDone = false
    /// When the request was sent or last got a reply (boot clock, s): the reply timeout counts
    /// from here, so a long answer in many chunks does not time out while it arrives.
    private var lastActivity = ProcessInfo.processInfo.systemUptime
    init(
      onMessage: @escaping (WireServerMessage) -> Bool, onFailure: @escaping (DaemonError) -> Void
    ) {
      self.onMessage = onMessage
      self.onFailure = onFailure
    }

    /// Hands over one reply; returns true when the request is complete.
    func deliver(_ message: WireServerMessage) -> Bool {
      lock.withLock {
        guard !isDone else { return true }
        lastActivity = ProcessInfo.processInfo.systemUptime
        isDone = onMessage(message)
        return isDone
      }
    }

    /// Whether the request is over, and how long it has waited since its last reply, s.
    var progress: (isDone: Bool, idle: Double) {
      lock.withLock { (isDone, ProcessInfo.processInfo.systemUptime - lastActivity) }
    }

    func fail(_ error: DaemonError) {
      lock.withLock {
        guard !isDone else { return }
        isDone = true
        onFailure(error)
      }
    }
  }

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

  private struct State {
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

  private let state = Locked(State())
  /// Held while a connection is established and while a new stream is registered and subscribed,
  /// so that one connection is made at a time: the reconnect thread and a request's `connect()`
  /// would otherwise each open one, orphan the other's, and subscribe every stream twice (its
  /// handler then gets each sample twice).
  private let establishing = NSLock()

  public init(socketPath: String = DaemonClient.defaultSocketPath(), clientName: String? = nil) {
    self.socketPath = socketPath
    self.clientName = clientName ?? "\(ProcessInfo.processInfo.processName) (pid \(getpid()))"
  }

  deinit {
    state.withLock { $0.socket }?.close()
  }

  /// Connects (if not connected) and returns what the daemon serves. Blocks up to `timeout` s.
  ///
  /// An attempt made within ``reconnectInterval`` of a failed one waits for the rest of that
  /// interval first (within `timeout`), as every request and subscription that must connect
  /// does: a caller that starts again at each failure (a handler restarting its updates on every
  /// error) would otherwise try, and fail, thousands of times a second while the daemon is away.
  ///
  /// - Throws: ``DaemonError``: ``DaemonError/Code/disconnected`` when no daemon runs at
  ///   ``socketPath`` (no socket, or nobody listening on it), when the process listening there
  ///   runs as another user, or when the connection ends during the handshake;
  ///   ``DaemonError/Code/timeout`` when a daemon takes no connection, or does not answer the
  ///   handshake, within `timeout` (stopped or stuck), or when another thread's connection is still
  ///   being made then; ``DaemonError/Code/protocolError`` when the answer is not a handshake.
  ///   Unlike ``subscribe(_:handler:)``, this never waits for a reconnection: it fails, and a
  ///   later call tries again.
  @discardableResult
  public func connect(timeout: Double = 2) throws -> DaemonServerInfo {
    if let info = connectedInfo { return info }
    return try whileConnected(timeout: timeout) { $0 }
  }

  /// What the daemon serves, when connected now.
  private var connectedInfo: DaemonServerInfo? {
    state.withLock { $0.socket != nil ? $0.info : nil }
  }

  /// Runs `body` with a connection up (made first when there is none) and no other connection
  /// being made meanwhile. A caller that finds another one connecting waits for it and uses its
  /// connection; all of this takes at most about `timeout` s.
  private func whileConnected<T>(
    timeout: Double, _ body: (DaemonServerInfo) throws -> T
  ) throws -> T {
    let deadline = Date(timeIntervalSinceNow: max(0, timeout))
    guard establishing.lock(before: deadline) else {
      // A timeout: another caller's attempt holds the connection up, the daemon being slow or
      // stuck (one that is not running fails at once). `subscribe` waits for such a daemon.
      throw DaemonError(
        .timeout, "still connecting to the motion daemon at \(socketPath) after \(timeout) s")
    }
    defer { establishing.unlock() }
    if let info = connectedInfo { return try body(info) }
    // Paced after a failure (see `connect`); no connection can be made meanwhile, since this
    // holds `establishing`.
    let pause = min(pauseAfterFailedAttempt(), deadline.timeIntervalSinceNow)
    if pause > 0 { Thread.sleep(forTimeInterval: pause) }
    let info: DaemonServerInfo
    do {
      // A receive timeout of 0 would mean none: what is left of the wait, at least 10 ms.
      info = try establish(timeout: max(0.01, deadline.timeIntervalSinceNow))
    } catch {
      let now = ProcessInfo.processInfo.systemUptime
      state.withLock { $0.lastFailedAttempt = now }
      throw error
    }
    return try body(info)
  }

  /// What is left of ``reconnectInterval`` since the last failed attempt to connect, s (0 or
  /// less when none failed that recently).
  private func pauseAfterFailedAttempt() -> Double {
    guard let failed = state.withLock({ $0.lastFailedAttempt }) else { return 0 }
    return failed + reconnectInterval - ProcessInfo.processInfo.systemUptime
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

  // MARK: Connection

  /// Notices the daemon sends every client (request_id 0) that a handshake skips while it waits
  /// for the Hello reply, at most.
  static let noticesSkippedInHandshake = 16

  /// Connects and handshakes; the caller holds `establishing`.
  private func establish(timeout: Double) throws -> DaemonServerInfo {
    let deadline = ProcessInfo.processInfo.systemUptime + timeout
    /// What is left of `timeout`, at least 10 ms (a timeout of 0 would mean none).
    func left() -> Double { max(0.01, deadline - ProcessInfo.processInfo.systemUptime) }
    let socket: UnixSocket
    do {
      // Bounded: a daemon that stopped accepting (SIGSTOP, stuck) keeps each attempt in its
      // backlog, and once that is full an unbounded `connect` would wait for ever.
      socket = try UnixSocket.connect(path: socketPath, timeout: timeout)
    } catch let error as UnixSocket.SocketError where error.isTimeout {
      throw DaemonError(
        .timeout,
        "the motion daemon at \(socketPath) took no connection within \(timeout) s (stopped or stuck)"
      )
    } catch {
      throw DaemonError(.disconnected, "the motion daemon is not running (\(socketPath): \(error))")
    }
    guard socket.isPeerTrusted else {
      let owner = socket.peerUserID.map { "user \($0)" } ?? "an unknown user"
      socket.close()
      throw DaemonError(
        .disconnected,
        "the process listening on \(socketPath) runs as \(owner), not as this user: not a motion daemon to trust with motion data"
      )
    }
    // Handshake synchronously on this thread before the reader starts.
    var hello = WireClientMessage()
    hello.requestID = 0
    var body = Opencoremotion_Daemon_V1_Hello()
    body.clientName = clientName
    body.protocolVersion = Wire.protocolVersion
    hello.hello = body
    socket.setReceiveTimeout(seconds: left())
    var decoder = FrameDecoder()
    var reply: WireServerMessage
    do {
      try socket.write(Wire.frame(hello), timeout: left())
      reply = try Self.readOne(socket, &decoder)
      // An authorization change notified to every client can be queued for this connection
      // before the Hello is answered; the reply reflects the change anyway.
      var skipped = 0
      while case .authorization = reply.body, reply.requestID == 0,
        skipped < Self.noticesSkippedInHandshake
      {
        skipped += 1
        reply = try Self.readOne(socket, &decoder)
      }
    } catch let error as UnixSocket.SocketError
      where error.code == EAGAIN || error.code == EWOULDBLOCK || error.isTimeout
    {
      // The receive timeout ran out (`recv` reports it as EAGAIN): the kernel queued the
      // connection, but nothing answers on it (a daemon stopped with SIGSTOP, or stuck). Said so,
      // where "Resource temporarily unavailable" named neither the daemon nor the wait.
      socket.close()
      // To the millisecond: the caller's deadline arrives here as 0.1999959… for 0.2.
      let shown = (timeout * 1000).rounded() / 1000
      throw DaemonError(
        .timeout,
        "the motion daemon at \(socketPath) did not answer the handshake within \(shown) s (stopped or stuck)"
      )
    } catch {
      socket.close()
      throw (error as? DaemonError)
        ?? DaemonError(.disconnected, "handshake with the motion daemon failed: \(error)")
    }
    socket.setReceiveTimeout(seconds: 0)
    guard case .hello(let answer) = reply.body else {
      socket.close()
      throw DaemonError(.protocolError, "the motion daemon did not answer the handshake")
    }
    let low = answer.minRateHz.isFinite && answer.minRateHz > 0 ? answer.minRateHz : 1
    let high = answer.maxRateHz.isFinite && answer.maxRateHz >= low ? answer.maxRateHz : low
    let info = DaemonServerInfo(
      sourceName: answer.sourceName, availableSensors: Wire.sensorSet(answer.availableSensors),
      supportedSampleRates: low...high, historyAuthorized: answer.historyAuthorized,
      servesFusedMotion: answer.servesFusedMotion)
    let established = state.withLock { s -> (connection: UInt64, streams: [Stream])? in
      guard !s.isClosed else { return nil }
      s.socket = socket
      s.connection += 1
      s.info = info
      s.historyAuthorized = info.historyAuthorized
      s.wireToStream = [:]
      return (s.connection, Array(s.streams.values))
    }
    guard let (connection, streams) = established else {
      socket.close()
      throw DaemonError(.disconnected, "the client was closed")
    }
    let handshakeDecoder = decoder
    // The reader holds the client only while it hands a message over: a client its owner drops
    // without `close()` is freed, and its `deinit` closes the socket, which ends the reader.
    let thread = Thread { [weak self] in
      Self.readLoop(socket, connection: connection, decoder: handshakeDecoder) { [weak self] in
        self
      }
    }
    thread.name = "motiond-client-read"
    thread.start()
    for stream in streams { sendSubscribe(stream, sendingBy: deadline) }
    return info
  }

  private static func readOne(
    _ socket: UnixSocket, _ decoder: inout FrameDecoder
  ) throws -> WireServerMessage {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      if let frame = try decoder.nextFrame() {
        return try WireServerMessage(serializedBytes: Array(frame))
      }
      let count = try socket.read(into: &buffer)
      guard count > 0 else {
        throw DaemonError(.disconnected, "the motion daemon closed the connection")
      }
      decoder.append(buffer[0..<count])
    }
  }

  /// Reads `socket`, connection number `connection`, until it ends and hands each message to the
  /// client `owner` returns, as long as there is one.
  private static func readLoop(
    _ socket: UnixSocket, connection: UInt64, decoder initial: FrameDecoder,
    owner: () -> DaemonClient?
  ) {
    var decoder = initial
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    reading: while true {
      while true {
        let frame: ArraySlice<UInt8>?
        do { frame = try decoder.nextFrame() } catch { break reading }
        guard let frame else { break }
        guard let message = try? WireServerMessage(serializedBytes: Array(frame)) else {
          break reading
        }
        guard let client = owner() else { break reading }
        client.dispatch(message, from: connection)
      }
      let count: Int
      do { count = try socket.read(into: &buffer) } catch { break }
      if count == 0 { break }
      decoder.append(buffer[0..<count])
    }
    if let client = owner() {
      client.connectionLost(socket)
    } else {
      socket.close()
    }
  }

  /// Handles `message`, which connection number `connection` brought.
  private func dispatch(_ message: WireServerMessage, from connection: UInt64) {
    let id = message.requestID
    switch message.body {
    case .authorization(let answer):
      state.withLock { $0.historyAuthorized = answer.historyAuthorized }
      // request_id 0: the daemon's notice of a change, answering nobody.
      guard id != 0, let pending = state.withLock({ $0.pending[id] }) else { return }
      if pending.deliver(message) { state.withLock { _ = $0.pending.removeValue(forKey: id) } }
    case .sourceSensors(let notice):
      // request_id 0: the daemon's source offers other sensors now (a phone stream without a
      // gyroscope). Taken in before the source event that follows it reaches the streams, so
      // that their handlers read the new set, as they would from a direct source.
      state.withLock { s in
        s.info?.availableSensors = Wire.sensorSet(notice.availableSensors)
        s.info?.servesFusedMotion = notice.servesFusedMotion
      }
    case .samples, .fusedMotion, .deviceMotion, .live, .sourceEvent:
      // A Subscribe's own acknowledgement comes as `.ack`; stream messages go to the stream.
      guard let stream = state.withLock({ s in s.wireToStream[id].flatMap { s.streams[$0] } })
      else {
        if case .sourceEvent = message.body, let pending = state.withLock({ $0.pending[id] }) {
          _ = pending.deliver(message)
        }
        return
      }
      func tell(_ event: DaemonStreamEvent) { stream.deliver(event, from: connection) }
      switch message.body {
      case .samples(let batch):
        if batch.droppedBefore > 0 { tell(.dropped(batch.droppedBefore)) }
        for sample in batch.samples {
          tell(
            .sample(Wire.motionSample(sample), receivedBootNanoseconds: sample.receivedBootNs))
        }
      case .deviceMotion(let batch):
        if batch.droppedBefore > 0 { tell(.dropped(batch.droppedBefore)) }
        for motion in batch.motions {
          tell(
            .deviceMotion(Self.deviceMotion(motion), receivedBootNanoseconds: motion.receivedBootNs)
          )
        }
      case .fusedMotion(let batch):
        if batch.droppedBefore > 0 { tell(.dropped(batch.droppedBefore)) }
        for estimate in batch.estimates {
          tell(
            .fusedMotion(
              Wire.deviceMotionEstimate(estimate), receivedBootNanoseconds: estimate.receivedBootNs)
          )
        }
      case .live(let live):
        switch live.update {
        case .pedometer(let p):
          tell(
            .pedometer(
              DaemonPedometerReading(
                timestamp: p.timestamp, date: Date(timeIntervalSince1970: p.date), steps: p.steps,
                distance: p.distance,
                floorsAscended: p.floorsAscended, floorsDescended: p.floorsDescended,
                cadence: p.cadence,
                activeTime: p.activeSeconds)))
        case .activity(let a):
          tell(.activity(Self.segment(a)))
        case .altitude(let a):
          tell(
            .altitude(
              DaemonAltitudeReading(
                timestamp: a.timestamp, relativeAltitude: a.relativeAltitude, pressure: a.pressure))
          )
        case nil:
          break
        }
      case .sourceEvent(let event):
        if event.kind == .finished {
          tell(.sourceFinished)
        } else {
          tell(
            .sourceFailure(
              kind: event.failureKind, message: event.message, isFatal: !event.advisory))
        }
      default:
        break
      }
    default:
      if case .error(let error) = message.body, error.code == .notAuthorized {
        state.withLock { $0.historyAuthorized = false }
      }
      // A stream's id on a connection is its Subscribe's request id: this is the daemon's answer
      // to that. Told here, on the reader thread and outside the request's lock, which a handler
      // may need (a handler that closes the client fails every request).
      if let stream = state.withLock({ s in s.wireToStream[id].flatMap { s.streams[$0] } }) {
        stream.subscriptionAnswered(on: connection)
        // A refused subscription (a frame the source cannot give) reaches its handler as a
        // failure of the stream rather than as silence.
        if case .error(let error) = message.body {
          stream.deliver(
            .sourceFailure(
              kind: SourceFailure.Kind.other.rawValue,
              message: "the motion daemon refused the subscription: \(error.message)",
              isFatal: true),
            from: connection)
        }
      }
      guard let pending = state.withLock({ $0.pending[id] }) else { return }
      if pending.deliver(message) { state.withLock { _ = $0.pending.removeValue(forKey: id) } }
    }
  }

  static func deviceMotion(_ wire: Opencoremotion_Daemon_V1_DeviceMotion) -> DaemonDeviceMotion {
    DaemonDeviceMotion(
      timestamp: wire.timestamp, attitude: Wire.quaternion(wire.attitude),
      rotationRate: Wire.simd(wire.rotationRate), gravity: Wire.simd(wire.gravity),
      userAcceleration: Wire.simd(wire.userAcceleration),
      magneticField: Wire.simd(wire.magneticField),
      magneticFieldAccuracy: Int(wire.magneticFieldAccuracy), heading: wire.heading,
      headingAccuracy: wire.hasHeadingAccuracy && wire.headingAccuracy.isFinite
        ? wire.headingAccuracy : -1)
  }

  static func segment(_ a: WireActivitySegment) -> DaemonActivitySegment {
    DaemonActivitySegment(
      startDate: Date(timeIntervalSince1970: a.startDate), timestamp: a.timestamp,
      stationary: a.stationary,
      walking: a.walking, running: a.running, cycling: a.cycling, automotive: a.automotive,
      unknown: a.unknown,
      confidence: Int(a.confidence))
  }

  /// Ends the connection on `socket`, if it is still the current one: its requests fail, its
  /// streams get `.disconnected` (those told so already and told nothing since do not), and a
  /// reconnection starts when streams want one. The state changes at once; the rest follows on
  /// this thread, or `inBackground` on a thread of its own: a writer whose write failed may be
  /// inside a request's completion or a stream's handler, and failing that request again there
  /// would take its lock a second time.
  private func connectionLost(_ socket: UnixSocket, inBackground: Bool = false) {
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
  private func reconnectIfNeeded() -> Bool {
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

  // MARK: Requests

  /// Sends `body` and calls `onMessage` with each reply until it returns true. Returns the
  /// request's id on this connection (`nil` when not connected: `onFailure` has been called).
  /// A request that `timesOut` fails with `.timeout` after ``replyTimeout`` s without a reply (a
  /// daemon that is stopped or stuck); a Subscribe does not, its stream may be quiet for hours.
  ///
  /// Writing waits at most ``replyTimeout`` s, and not past `deadline` (boot clock, s) when there
  /// is one, for the daemon to take the request: one that stopped reading fills the socket's
  /// buffer after a few hundred requests, and the write would otherwise block for ever, before
  /// any reply timeout applies. A write that fails or times out may have sent part of the frame, so it
  /// ends the connection, as the daemon going away does (the client reconnects when it has
  /// streams).
  @discardableResult
  private func send(
    _ fill: (inout WireClientMessage) -> Void, stream: Stream? = nil, timesOut: Bool = false,
    sendingBy deadline: Double? = nil,
    onMessage: @escaping (WireServerMessage) -> Bool, onFailure: @escaping (DaemonError) -> Void
  ) -> UInt64? {
    var message = WireClientMessage()
    fill(&message)
    let pending = Pending(onMessage: onMessage, onFailure: onFailure)
    let (socket, isUnsubscribed) = state.withLock { s -> (UnixSocket?, Bool) in
      guard let socket = s.socket else { return (nil, false) }
      // A stream's id on this connection is its Subscribe's request id; map it before the daemon
      // can answer. A stream unsubscribed meanwhile (while a reconnection resubscribed the
      // others) is not subscribed again: its Unsubscribe is already gone, with its old id, and
      // the daemon would keep streaming to nobody.
      var localID: UInt64?
      if let stream {
        guard let found = s.streams.first(where: { $0.value === stream })?.key else {
          return (nil, true)
        }
        localID = found
      }
      s.nextRequestID += 1
      message.requestID = s.nextRequestID
      s.pending[s.nextRequestID] = pending
      if let stream, let localID {
        s.wireToStream[s.nextRequestID] = localID
        let id = s.nextRequestID
        stream.wireID.withLock { $0 = id }
      }
      return (socket, false)
    }
    if isUnsubscribed { return nil }
    guard let socket else {
      onFailure(DaemonError(.disconnected, "not connected to the motion daemon"))
      return nil
    }
    if timesOut { watch(message.requestID, pending, after: replyTimeout) }
    // At least 10 ms, as a write with room in the buffer does not wait at all.
    let limit = min(
      replyTimeout, max(0.01, (deadline ?? .infinity) - ProcessInfo.processInfo.systemUptime))
    do { try socket.write(Wire.frame(message), timeout: limit) } catch {
      let failure =
        (error as? UnixSocket.SocketError)?.isTimeout == true
        ? DaemonError(.timeout, "the motion daemon took no request for \(limit) s")
        : DaemonError(.disconnected, "the motion daemon went away: \(error)")
      if let pending = state.withLock({ $0.pending.removeValue(forKey: message.requestID) }) {
        pending.fail(failure)
      }
      logger.warning("closing the connection to the motion daemon: \(failure.message)")
      connectionLost(socket, inBackground: true)
    }
    return message.requestID
  }

  /// A request fails with `.timeout` when the daemon has sent nothing for it for this long, s
  /// (30 by default; at least 0.05). The daemon answers a query in milliseconds and streams a
  /// long one in chunks, each of which restarts the wait.
  public var replyTimeout: Double {
    get { state.withLock { $0.replyTimeout } }
    set { state.withLock { $0.replyTimeout = newValue.isFinite ? max(0.05, newValue) : 30 } }
  }

  /// Fails request `id` with `.timeout` once it has waited `timeout` s since its last reply.
  private func watch(_ id: UInt64, _ pending: Pending, after delay: Double) {
    DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in
      guard let self else { return }
      let timeout = self.replyTimeout
      let (isDone, idle) = pending.progress
      guard !isDone else { return }
      guard idle >= timeout else {
        self.watch(id, pending, after: timeout - idle)
        return
      }
      self.abandon(
        id, pending,
        DaemonError(.timeout, "the motion daemon sent no reply for \(timeout) s"))
    }
  }

  /// Forgets request `id` (a later reply is ignored) and fails it with `error`.
  private func abandon(_ id: UInt64, _ pending: Pending, _ error: DaemonError) {
    state.withLock { s in
      if s.pending[id] === pending { s.pending[id] = nil }
    }
    pending.fail(error)
  }

  /// Cancels request `id`, if it is still waiting (its task was cancelled).
  private func cancelRequest(_ id: UInt64) {
    guard let pending = state.withLock({ $0.pending[id] }) else { return }
    abandon(id, pending, DaemonError(.cancelled, "the request was cancelled"))
  }

  /// Runs `start` (which sends a request and returns its id) so that cancelling the calling task
  /// fails the request with `.cancelled` instead of leaving it waiting.
  private func cancellable<T: Sendable>(
    _ start: (CheckedContinuation<T, any Error>) -> UInt64?
  ) async throws -> T {
    // The id is known only once `start` has run; a cancellation that comes first is kept here.
    let sent = Locked<(id: UInt64?, cancelled: Bool)>((nil, false))
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<T, any Error>) in
        let id = start(continuation)
        let cancelled = sent.withLock { s -> Bool in
          s.id = id
          return s.cancelled
        }
        if cancelled, let id { cancelRequest(id) }
      }
    } onCancel: {
      let id = sent.withLock { s -> UInt64? in
        s.cancelled = true
        return s.id
      }
      if let id { cancelRequest(id) }
    }
  }

  // MARK: Queries

  /// Sends `query` and hands its answer, or why there is none, to `completion`, exactly once: on
  /// the connection's reader thread, on a timer's thread for a reply that never came
  /// (``replyTimeout``), or on the calling thread when the request could not be sent. Returns the
  /// request's id (`nil` when it was not sent), for ``cancel(_:)``.
  ///
  /// Without a connection it first connects, blocking for at most `connectTimeout` s; with
  /// `connectTimeout` `nil` it fails at once with ``DaemonError/Code/disconnected`` instead (for
  /// callers that must not block, such as a stream handler on the reader thread: the client
  /// reconnects by itself in the background). Handing the request to a daemon that does not read
  /// it blocks for ``replyTimeout`` s at most, and not past `deadline` (boot clock, s).
  @discardableResult
  package func ask<Answer>(
    _ query: DaemonQuery<Answer>, connectingFor connectTimeout: Double? = 2,
    sendingBy deadline: Double? = nil,
    completion: @escaping @Sendable (Result<Answer, any Error>) -> Void
  ) -> UInt64? {
    if let connectTimeout, !isConnected {
      do { try connect(timeout: connectTimeout) } catch {
        completion(.failure(error))
        return nil
      }
    }
    let read = query.makeReader()
    return send(
      query.fill, timesOut: true, sendingBy: deadline,
      onMessage: { message in
        do {
          if case .error(let error) = message.body { throw Self.error(error) }
          guard let answer = try read(message) else { return false }
          completion(.success(answer))
        } catch {
          completion(.failure(error))
        }
        return true
      },
      onFailure: { completion(.failure($0)) })
  }

  /// Cancels request `id` of ``ask(_:connectingFor:sendingBy:completion:)``: if it is still
  /// waiting, its completion gets ``DaemonError/Code/cancelled`` and a later reply is ignored.
  package func cancel(_ id: UInt64) {
    cancelRequest(id)
  }

  /// Sends `query` and waits for its answer on the calling thread, for at most `timeout` s
  /// (connecting included); then the request is cancelled and ``DaemonError/Code/timeout``
  /// thrown.
  ///
  /// For synchronous callers (the Core Motion history queries). An `async` request waited for
  /// from a thread needs a thread of Swift concurrency's shared pool to run on, and in a process
  /// that keeps the pool busy every such query would time out; this wait needs none. Never call
  /// it from a stream handler: those run on the connection's reader thread, which reads the
  /// answer.
  package func waitForAnswer<Answer>(
    to query: DaemonQuery<Answer>, timeout: Double
  ) throws -> Answer {
    let limit = timeout.isFinite ? max(0, timeout) : replyTimeout
    let deadline = Date(timeIntervalSinceNow: limit)
    let outcome = AnswerSlot<Answer>()
    let id = ask(
      query, connectingFor: limit, sendingBy: ProcessInfo.processInfo.systemUptime + limit
    ) { outcome.fill($0) }
    guard let result = outcome.wait(until: deadline) else {
      if let id { cancelRequest(id) }
      throw DaemonError(.timeout, "the motion daemon did not answer within \(limit) s")
    }
    return try result.get()
  }

  /// Sends `query` and awaits its answer; cancelling the calling task fails the request with
  /// ``DaemonError/Code/cancelled``. Connecting, when needed, blocks a thread of its own rather
  /// than one of Swift concurrency's shared pool.
  package func answer<Answer>(to query: DaemonQuery<Answer>) async throws -> Answer {
    if !isConnected {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Void, any Error>) in
        Self.connectingQueue.async {
          continuation.resume(with: Result { _ = try self.connect() })
        }
      }
    }
    return try await cancellable { (continuation: CheckedContinuation<Answer, any Error>) in
      ask(query, connectingFor: nil) { continuation.resume(with: $0) }
    }
  }

  /// Where `answer(to:)` connects. A queue of its own: on Linux the global queues share their
  /// threads with Swift concurrency's pool, so a busy pool would hold the connection up too.
  /// Serial, since connections are made one at a time anyway (`establishing`).
  private static let connectingQueue = DispatchQueue(label: "OpenCoreMotion.daemon-client.connect")

  static func error(_ wire: WireError) -> DaemonError {
    switch wire.code {
    case .invalidParameter: return DaemonError(.invalidParameter, wire.message)
    case .notAuthorized: return DaemonError(.notAuthorized, wire.message)
    case .notAvailable: return DaemonError(.notAvailable, wire.message)
    case .noData: return DaemonError(.noData, wire.message)
    default: return DaemonError(.protocolError, wire.message)
    }
  }

  /// The daemon's state.
  public func status() async throws -> DaemonStatus {
    try await answer(to: .status)
  }

  /// Pedometer totals between two dates (`CMPedometer.queryPedometerData`).
  public func pedometerTotals(from start: Date, to end: Date) async throws -> DaemonPedometerTotals
  {
    try await answer(to: .pedometerTotals(from: start, to: end))
  }

  /// Activity segments between two dates, starting with the one in force at `start`
  /// (`CMMotionActivityManager.queryActivityStarting`).
  public func activities(from start: Date, to end: Date) async throws -> [DaemonActivitySegment] {
    try await answer(to: .activities(from: start, to: end))
  }

  /// Recorded accelerometer samples with `start ≤ date ≤ end` (≤ 12 h; `CMSensorRecorder`).
  public func recordedAccelerometer(
    from start: Date, to end: Date
  ) async throws -> [DaemonRecordedSample] {
    try await answer(to: .recordedAccelerometer(from: start, to: end))
  }

  /// Asks the daemon to record the accelerometer for `duration` s (≤ 43 200); returns when the
  /// recording now ends.
  public func recordAccelerometer(duration: Double) async throws -> Date {
    try await answer(to: .recordAccelerometer(duration: duration))
  }

  /// Whether the user allows motion history (`motionctl privacy`), asked of the daemon now.
  public func historyAuthorization() async throws -> Bool {
    try await answer(to: .historyAuthorization)
  }

  /// Whether the user allows motion history, without a round trip: the daemon's answer at the
  /// handshake, kept current by the notice the daemon sends every client when the user changes it.
  ///
  /// While disconnected, a read that knows nothing yet makes one attempt to connect, on the
  /// calling thread (0.5 s at most, at most one a second), and says `true` if that fails. A read
  /// that knows an answer returns it at once and refreshes it on a thread of its own (one
  /// attempt at most every second, one at a time), so that a later read sees the change the user
  /// made while the client was away. `CMPedometer.authorizationStatus()` and its like read this
  /// on the app's thread, which a read waiting for that attempt held up, once a second, for the
  /// whole 0.5 s against a daemon that takes connections and does not answer.
  public var isHistoryAuthorized: Bool {
    let (known, attempt) = state.withLock { s -> (Bool?, Bool) in
      let now = ProcessInfo.processInfo.systemUptime
      let connected = s.socket != nil && s.info != nil
      guard !connected, !s.isClosed, !s.isRefreshingAuthorization,
        now - s.lastAuthorizationConnect >= 1
      else { return (s.historyAuthorized, false) }
      s.lastAuthorizationConnect = now
      if s.historyAuthorized != nil { s.isRefreshingAuthorization = true }
      return (s.historyAuthorized, true)
    }
    guard attempt else { return known ?? true }
    guard let known else {
      guard (try? connect(timeout: Self.authorizationConnectTimeout)) != nil else { return true }
      return state.withLock { $0.historyAuthorized } ?? true
    }
    let refresh = Thread { [weak self] in
      guard let self else { return }
      _ = try? self.connect(timeout: Self.authorizationConnectTimeout)
      self.state.withLock { $0.isRefreshingAuthorization = false }
    }
    refresh.name = "motiond-client-authorization"
    refresh.start()
    return known
  }

  /// How long ``isHistoryAuthorized`` tries to connect, s.
  private static let authorizationConnectTimeout = 0.5

  /// Allows or denies motion history (deny stops recording and deletes the history).
  public func setHistoryAllowed(_ allowed: Bool) async throws {
    try await answer(to: .setHistoryAllowed(allowed))
  }

  // MARK: Streams

  /// Starts a stream; `handler` runs on the connection's reader thread until the returned
  /// subscription is cancelled. Survives daemon restarts (see the type's discussion).
  ///
  /// While the client is reconnecting (the daemon went away under its streams), a stream joins
  /// those waiting without an attempt to connect of its own, which would wait for the
  /// reconnection's (up to 2 s each against a daemon that never answers), so this call returns
  /// at once (within ``reconnectInterval`` when another stream joined just before: joins are
  /// paced as attempts to connect are, see ``connect(timeout:)``); a stream whose own attempt
  /// fails while a reconnection starts joins it too. With neither a connection nor a
  /// reconnection, this call tries to connect for at most 0.5 s; when a daemon is there but does
  /// not answer within that (it takes no connection, or answers no handshake: stopped, stuck, or
  /// merely slower), the stream waits in the same way, and this call starts the reconnection.
  ///
  /// A stream that waits gets ``DaemonStreamEvent/disconnected(_:)`` at once, and the next
  /// connection subscribes it (``DaemonStreamEvent/reconnected`` follows, before that
  /// connection's first event, as for the streams that waited before it). That first call of
  /// `handler` is made before this returns, on the calling thread (a caller must not hold, while
  /// it subscribes, a lock that `handler` takes), or, when the reconnection is quicker, on the
  /// thread that brings its first event to the stream, just before that event: the handler never
  /// hears of the disconnection after news of the next connection.
  ///
  /// - Throws: ``DaemonError`` when no reconnection is under way and no daemon can be asked: none
  ///   runs at ``socketPath`` (no socket, nobody listening), the process listening there runs as
  ///   another user, the connection ends during the handshake, or the answer is not a handshake.
  ///   Not when a daemon is there and does not answer in time (see above).
  public func subscribe(
    _ request: DaemonStreamRequest, handler: @escaping @Sendable (DaemonStreamEvent) -> Void
  ) throws -> SourceSubscription {
    let stream = Stream(request: request, handler: handler)
    // Joins a reconnection under way without an attempt of its own: that attempt would wait for
    // the reconnection's (each up to 2 s against a daemon that takes connections and never
    // answers) and then make one more, on the caller's thread, which may be an app's main thread
    // setting an update interval.
    if let localID = joinReconnectionUnderWay(stream) {
      afterRegistrationForTesting?()
      stream.deliverHeldAdvisory()
      return SourceSubscription { self.unsubscribe(localID) }
    }
    let localID: UInt64
    do {
      // Registered and subscribed with no connection being made meanwhile: a connection made in
      // between would subscribe the new stream too, and then this call again. A short attempt,
      // on the caller's thread: a daemon answers in milliseconds, and one that does not is left
      // to the reconnection below, where the full 2 s attempt blocked the caller and then threw.
      localID = try whileConnected(timeout: Self.firstAttemptTimeout) { _ in
        let localID = register(stream)
        sendSubscribe(stream)
        return localID
      }
      afterRegistrationForTesting?()
    } catch {
      let reason = (error as? DaemonError)?.message ?? "\(error)"
      let advisory = "\(reason); the stream waits for the reconnection"
      // A daemon that took the connection (or holds another caller's up) but did not answer is
      // there, stopped or stuck or slow: the stream waits for it as for one that went away,
      // rather than fail for good on the caller's thread. One that is not running still fails.
      if (error as? DaemonError)?.code == .timeout,
        let localID = waitForTheDaemon(stream, advisory: advisory)
      {
        afterRegistrationForTesting?()
        stream.deliverHeldAdvisory()
        return SourceSubscription { self.unsubscribe(localID) }
      }
      // A manager whose update interval changes while the daemon restarts subscribes again at
      // the new rate and then cancels its old stream: refused, the new stream was a dead one in
      // place of one the reconnection would have brought back, and the updates stopped for good.
      guard let localID = waitForReconnection(stream, advisory: advisory) else { throw error }
      afterRegistrationForTesting?()
      stream.deliverHeldAdvisory()
      return SourceSubscription { self.unsubscribe(localID) }
    }
    // The handle keeps the client: a subscriber that holds its subscription but not the client
    // goes on receiving (the reader thread alone no longer keeps a client alive).
    return SourceSubscription { self.unsubscribe(localID) }
  }

  /// How long ``subscribe(_:handler:)`` tries to connect on the caller's thread when there is
  /// neither a connection nor a reconnection, s. Long against a daemon's handshake (milliseconds
  /// when it runs), short for a caller that may be an app's main thread.
  private static let firstAttemptTimeout = 0.5

  /// Adds `stream` to the streams a connection subscribes; returns its local id.
  private func register(_ stream: Stream) -> UInt64 {
    state.withLock { $0.add(stream) }
  }

  /// Registers `stream` with the streams waiting for the reconnection, when the client is
  /// reconnecting and no connection is up; returns its local id, or `nil` (the stream then stays
  /// unregistered, with nothing held). Without `establishing`, which the reconnection holds for
  /// the whole of each attempt: the stream holds its `.disconnected` before it is registered, so
  /// that whatever reaches it once it is (a connection's subscription and samples, `.reconnected`)
  /// comes after the advisory, and a connection set up before the registration is seen in the same
  /// locked step (`socket`), where the stream is then left to the ordinary path. One set up after
  /// finds the stream registered and subscribes it.
  ///
  /// A join within ``reconnectInterval`` of the previous one waits for the rest of it first, as
  /// an attempt to connect after a failed one does (see ``connect(timeout:)``): a handler that
  /// starts its updates again at each error is told `.disconnected` inside each start, and would
  /// otherwise turn as fast as it can for as long as the daemon is away. A single subscription
  /// (an update interval set once) does not wait. The stream waits registered: the reconnection
  /// ends when no stream is left, and a join that waited first, unregistered, while the only
  /// other stream was cancelled found it ended and the daemon unreachable, and failed (or made an
  /// attempt of its own, up to 2 s against a daemon that never answers).
  private func joinReconnectionUnderWay(_ stream: Stream) -> UInt64? {
    stream.holdAdvisory(
      "not connected to the motion daemon at \(socketPath), which the client is reconnecting to; "
        + "the stream waits for the reconnection")
    let now = ProcessInfo.processInfo.systemUptime
    let joined = state.withLock { s -> (id: UInt64, pause: Double)? in
      guard !s.isClosed, s.socket == nil, s.isReconnecting else { return nil }
      let pause = s.lastJoin.map { min(max(0, $0 + reconnectInterval - now), reconnectInterval) }
      // The next join is paced from the end of this one's pause, when this call returns.
      s.lastJoin = now + (pause ?? 0)
      return (s.add(stream), pause ?? 0)
    }
    guard let joined else {
      // Not registered: nobody else has the stream, and the path that subscribes it may hold no
      // advisory at all (a connection is up).
      stream.dropHeldAdvisory()
      return nil
    }
    if joined.pause > 0 {
      whilePacingForTesting?()
      Thread.sleep(forTimeInterval: joined.pause)
    }
    return joined.id
  }

  /// Registers `stream` with the streams waiting for a connection and, when no reconnection is
  /// under way, starts one, as `connectionLost` does for the streams of a connection that ended:
  /// for a stream whose attempt to connect found a daemon that does not answer. Returns its local
  /// id, or `nil` (nothing registered nor held) when the client is closed or a connection is up
  /// (made since that attempt; `waitForReconnection` subscribes the stream on it). Without
  /// `establishing`, which a reconnection holds for the whole of each attempt (2 s against such a
  /// daemon), and so with its `.disconnected` held first, as `joinReconnectionUnderWay` does.
  private func waitForTheDaemon(_ stream: Stream, advisory: String) -> UInt64? {
    stream.holdAdvisory(advisory)
    let localID = state.withLock { s -> UInt64? in
      guard !s.isClosed, s.socket == nil else { return nil }
      return s.add(stream)
    }
    guard let localID else {
      stream.dropHeldAdvisory()
      return nil
    }
    // In a separate step: a connection made in between subscribes the stream it finds
    // registered, and one that ends it or a cancellation leaves nothing to reconnect for.
    if reconnectIfNeeded() {
      logger.info(
        "the motion daemon at \(socketPath) did not answer; reconnecting for a new stream")
    }
    return localID
  }

  /// Registers `stream` for the reconnection under way, if there is one; returns its local id,
  /// or `nil` when the client is closed or not reconnecting. Under `establishing`, so that no
  /// connection is being made meanwhile: one made before has subscribed the streams it found,
  /// and this one is subscribed on it here; a later one finds it registered. With no connection
  /// up, the stream holds `.disconnected(advisory)` for the caller to tell, before any event of
  /// a later connection (see ``Stream/holdAdvisory(_:)``).
  private func waitForReconnection(_ stream: Stream, advisory: String) -> UInt64? {
    guard establishing.lock(before: Date(timeIntervalSinceNow: 2)) else { return nil }
    defer { establishing.unlock() }
    let registered = state.withLock { s -> (id: UInt64, isConnected: Bool)? in
      guard !s.isClosed, s.socket != nil || s.isReconnecting else { return nil }
      return (s.add(stream), s.socket != nil)
    }
    guard let registered else { return nil }
    if registered.isConnected {
      sendSubscribe(stream)
    } else {
      // Before `establishing` is released: until then no connection can deliver to the stream.
      stream.holdAdvisory(advisory)
    }
    return registered.id
  }

  /// The streams subscribed now (for the tests, which replay a reconnection's resubscription).
  var subscribedStreams: [Stream] { state.withLock { Array($0.streams.values) } }

  /// Subscribes `stream` on the current connection (at a start, and for every stream after a
  /// reconnection); nothing when it was unsubscribed meanwhile. Writing waits until `deadline`
  /// at most (see `send`).
  func sendSubscribe(_ stream: Stream, sendingBy deadline: Double? = nil) {
    send(
      { message in
        var subscribe = Opencoremotion_Daemon_V1_Subscribe()
        subscribe.sensors = Wire.sensorBits(stream.request.sensors)
        subscribe.rateHz = stream.request.rate
        subscribe.pedometer = stream.request.pedometer
        subscribe.activity = stream.request.activity
        subscribe.altitude = stream.request.altitude
        subscribe.fusedMotion = stream.request.fusedMotion
        if let frame = stream.request.deviceMotionFrame {
          subscribe.deviceMotionFrame =
            Opencoremotion_Daemon_V1_ReferenceFrame(rawValue: frame.rawValue) ?? .unspecified
        }
        message.subscribe = subscribe
      }, stream: stream, sendingBy: deadline,
      // The answer reaches the stream in `dispatch`: `.reconnected` when owed, and a refusal.
      onMessage: { _ in true },
      onFailure: { [weak self] _ in
        // No connection to subscribe on: it ended after `subscribe()` found it up but before the
        // stream was registered, so its `connectionLost` saw no stream to reconnect for. Without
        // this the stream would wait for a reconnection that nothing starts.
        self?.reconnectIfNeeded()
      })
  }

  private func unsubscribe(_ localID: UInt64) {
    guard
      let stream = state.withLock({ s -> Stream? in
        guard let stream = s.streams.removeValue(forKey: localID) else { return nil }
        s.wireToStream = s.wireToStream.filter { $0.value != localID }
        return stream
      })
    else { return }
    stream.deliveryLock.lock()
    stream.isCancelled = true
    let wireID = stream.wireID.withLock { $0 }
    stream.deliveryLock.unlock()
    send(
      { message in
        var unsubscribe = Opencoremotion_Daemon_V1_Unsubscribe()
        unsubscribe.subscriptionID = wireID
        message.unsubscribe = unsubscribe
      }, onMessage: { _ in true }, onFailure: { _ in })
  }
}
