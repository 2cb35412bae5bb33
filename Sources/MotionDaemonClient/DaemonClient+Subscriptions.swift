// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionDaemonProtocol
import MotionSensors

extension DaemonClient {
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
