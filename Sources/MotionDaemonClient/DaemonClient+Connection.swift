// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDaemonProtocol
import MotionSensors
import SwiftProtobuf

extension DaemonClient {
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
  func whileConnected<T>(
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
      // Only the current connection's: a lost connection's reader can still hand over a notice
      // after the next handshake, and that handshake's answer is the newer one.
      state.withLock { s in
        if s.connection == connection { s.historyAuthorized = answer.historyAuthorized }
      }
      // request_id 0: the daemon's notice of a change, answering nobody.
      guard id != 0, let pending = state.withLock({ $0.pending[id] }) else { return }
      if pending.deliver(message) { state.withLock { _ = $0.pending.removeValue(forKey: id) } }
    case .sourceSensors(let notice):
      // request_id 0: the daemon's source offers other sensors now (a phone stream without a
      // gyroscope). Taken in before the source event that follows it reaches the streams, so
      // that their handlers read the new set, as they would from a direct source.
      state.withLock { s in
        guard s.connection == connection else { return }  // as for `.authorization`
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
}
