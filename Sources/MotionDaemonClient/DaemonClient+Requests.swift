// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionDaemonProtocol
import MotionSensors

extension DaemonClient {
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
  func send(
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
}
