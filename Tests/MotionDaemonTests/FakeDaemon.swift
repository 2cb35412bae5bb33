// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionConcurrency
import MotionDaemonProtocol
import MotionSensors
import SwiftProtobuf

#if canImport(Glibc)
  import Glibc
#endif

/// A stand-in for motiond in this process, for client tests that need the daemon to be slow to
/// answer the handshake, to send something before answering it, or to drop every connection: it
/// answers Hello and acknowledges Subscribe (and may follow that with a batch of samples), and
/// counts connections and subscriptions.
final class FakeDaemon: @unchecked Sendable {
  // Sendable because the mutable state is in `state` (a Locked); sockets are thread-safe.
  private struct State {
    var connections: [UnixSocket] = []
    var accepted = 0
    /// Connections whose client closed them (the read saw the end).
    var ended = 0
    /// Subscribe requests received, by connection (index in order of acceptance).
    var subscribes: [Int: Int] = [:]
    var helloDelay = 0.0
    var noticesBeforeHello = 0
    var answersQueries = true
    var pedometerSteps: Double?
    /// Requests other than Hello and Subscribe received.
    var queries = 0
    var readsAfterHello = true
    var connectionsRefusingRequests = 0
    var samplesAfterSubscribe = 0
    var closesAfterHello = false
    var historyAuthorized = true
    var authorizationAfterFirstSamples: Bool?
  }

  let path: String
  private let listener: UnixSocket
  private let state = Locked(State())

  init() throws {
    path = "/tmp/fake-motiond-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
    listener = try UnixSocket.listen(path: path)
    let thread = Thread { [listener, self] in
      while let socket = try? listener.accept() {
        let index = state.withLock { s -> Int in
          s.connections.append(socket)
          s.accepted += 1
          return s.accepted - 1
        }
        Thread { [self] in serve(socket, index: index) }.start()
      }
    }
    thread.start()
  }

  deinit {
    listener.close()
    unlink(path)
    for socket in state.withLock({ $0.connections }) { socket.close() }
  }

  /// Seconds the Hello reply waits (a daemon busy or slow to schedule).
  var helloDelay: Double {
    get { state.withLock { $0.helloDelay } }
    set { state.withLock { $0.helloDelay = newValue } }
  }

  /// Authorization notices (request_id 0, as every client gets one when the user changes the
  /// history setting) sent before each Hello reply.
  var noticesBeforeHello: Int {
    get { state.withLock { $0.noticesBeforeHello } }
    set { state.withLock { $0.noticesBeforeHello = newValue } }
  }

  /// Whether requests other than Hello and Subscribe get an answer (an acknowledgement); when
  /// `false` they get none, as from a daemon that is stopped or stuck.
  var answersQueries: Bool {
    get { state.withLock { $0.answersQueries } }
    set { state.withLock { $0.answersQueries = newValue } }
  }

  /// When set, pedometer queries are answered with this many steps (and the counters at 0);
  /// other queries get an acknowledgement.
  var pedometerSteps: Double? {
    get { state.withLock { $0.pedometerSteps } }
    set { state.withLock { $0.pedometerSteps = newValue } }
  }
  /// Whether a connection is read after its Hello is answered; when `false` it stays open but
  /// unread, as from a daemon that stopped reading (the client's writes fill its socket buffer).
  var readsAfterHello: Bool {
    get { state.withLock { $0.readsAfterHello } }
    set { state.withLock { $0.readsAfterHello = newValue } }
  }

  /// How many of the next handshakes stop reading before the Hello reply (`SHUT_RD`): the
  /// handshake succeeds, and the client's first write after it fails, so that the connection
  /// ends at a known point.
  var connectionsRefusingRequests: Int {
    get { state.withLock { $0.connectionsRefusingRequests } }
    set { state.withLock { $0.connectionsRefusingRequests = newValue } }
  }

  /// Samples sent in one batch, in the same write as the acknowledgement, after each Subscribe:
  /// timestamped `1000 × c + 1`, `1000 × c + 2`, … on connection `c` (0: the first accepted), so
  /// that a test tells which connection brought a sample. 0: none.
  var samplesAfterSubscribe: Int {
    get { state.withLock { $0.samplesAfterSubscribe } }
    set { state.withLock { $0.samplesAfterSubscribe = newValue } }
  }

  /// Whether each connection is closed once its Hello is answered: the handshake succeeds and
  /// the client is left without a connection straight after, so that every attempt of the client
  /// to connect shows in ``accepted``.
  var closesAfterHello: Bool {
    get { state.withLock { $0.closesAfterHello } }
    set { state.withLock { $0.closesAfterHello = newValue } }
  }

  /// An authorization notice (request id 0) with this answer, written on the first connection
  /// only, in the same write as its first Subscribe's acknowledgement and samples, after them.
  /// `nil`: none.
  var authorizationAfterFirstSamples: Bool? {
    get { state.withLock { $0.authorizationAfterFirstSamples } }
    set { state.withLock { $0.authorizationAfterFirstSamples = newValue } }
  }

  /// Whether the Hello reply says the user allows motion history (as `motionctl privacy` set it).
  var historyAuthorized: Bool {
    get { state.withLock { $0.historyAuthorized } }
    set { state.withLock { $0.historyAuthorized = newValue } }
  }

  /// Connections accepted so far.
  var accepted: Int { state.withLock { $0.accepted } }
  /// Requests other than Hello and Subscribe received so far (answered or not).
  var queries: Int { state.withLock { $0.queries } }
  /// Connections the client side closed.
  var ended: Int { state.withLock { $0.ended } }

  /// Subscribe requests received on every connection so far.
  var subscribes: Int { state.withLock { $0.subscribes.values.reduce(0, +) } }

  /// Subscribe requests received on connection `index` (0: the first accepted).
  func subscribes(onConnection index: Int) -> Int {
    state.withLock { $0.subscribes[index] ?? 0 }
  }

  /// Closes every connection, as a daemon that stops does.
  func dropConnections() {
    for socket in state.withLock({ s -> [UnixSocket] in
      defer { s.connections = [] }
      return s.connections
    }) {
      socket.close()
    }
  }

  private func serve(_ socket: UnixSocket, index: Int) {
    var decoder = FrameDecoder()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while let count = try? socket.read(into: &buffer), count > 0 {
      decoder.append(buffer[0..<count])
      while let frame = try? decoder.nextFrame(),
        let request = try? WireClientMessage(serializedBytes: Array(frame))
      {
        var reply = WireServerMessage()
        reply.requestID = request.requestID
        // Frames written after the reply, in the same write.
        var following: [UInt8] = []
        switch request.body {
        case .hello:
          let (delay, notices, refusing) = state.withLock { s in
            defer { s.connectionsRefusingRequests = max(0, s.connectionsRefusingRequests - 1) }
            return (s.helloDelay, s.noticesBeforeHello, s.connectionsRefusingRequests > 0)
          }
          Thread.sleep(forTimeInterval: delay)
          if refusing { socket.shutdownReading() }
          for _ in 0..<notices { try? socket.write(Self.authorizationNotice(true)) }
          var answer = Opencoremotion_Daemon_V1_HelloReply()
          answer.protocolVersion = Wire.protocolVersion
          answer.sourceName = "fake"
          // An accelerometer, so that the services built on it (the pedometer) are available.
          answer.availableSensors = Wire.sensorBits([.accelerometer])
          answer.minRateHz = 1
          answer.maxRateHz = 100
          answer.historyAuthorized = state.withLock { $0.historyAuthorized }
          reply.hello = answer
        case .subscribe:
          let (samples, authorization) = state.withLock { s -> (Int, Bool?) in
            s.subscribes[index, default: 0] += 1
            let notice =
              index == 0 && s.subscribes[index] == 1 ? s.authorizationAfterFirstSamples : nil
            return (s.samplesAfterSubscribe, notice)
          }
          reply.ack = Opencoremotion_Daemon_V1_Acknowledgement()
          if samples > 0 {
            following = Wire.frame(
              Self.sampleBatch(samples, requestID: request.requestID, connection: index))
          }
          if let authorization { following += Self.authorizationNotice(authorization) }
        default:
          guard
            state.withLock({ s in
              s.queries += 1
              return s.answersQueries
            })
          else { continue }
          if case .pedometerQuery(let query) = request.body,
            let steps = state.withLock({ $0.pedometerSteps })
          {
            var answer = Opencoremotion_Daemon_V1_PedometerTotals()
            answer.fromDate = query.fromDate
            answer.toDate = query.toDate
            answer.steps = steps
            answer.counters = Opencoremotion_Daemon_V1_PedometerLive()
            reply.pedometer = answer
          } else {
            reply.ack = Opencoremotion_Daemon_V1_Acknowledgement()
          }
        }
        try? socket.write(Wire.frame(reply) + following)
        if case .hello = request.body {
          let (closes, reads) = state.withLock { ($0.closesAfterHello, $0.readsAfterHello) }
          if closes {
            socket.close()
            return
          }
          if !reads { return }
        }
      }
      decoder.compact()
    }
    state.withLock { $0.ended += 1 }
  }

  /// The frame of an authorization notice (request id 0: the daemon's word that the user
  /// allowed or denied history, answering nobody).
  private static func authorizationNotice(_ allowed: Bool) -> [UInt8] {
    var notice = WireServerMessage()
    notice.authorization.historyAuthorized = allowed
    return Wire.frame(notice)
  }

  /// `count` accelerometer samples for the stream of Subscribe `requestID` on connection `index`,
  /// in one batch (see ``samplesAfterSubscribe``).
  private static func sampleBatch(
    _ count: Int, requestID: UInt64, connection index: Int
  ) -> WireServerMessage {
    var message = WireServerMessage()
    message.requestID = requestID
    var batch = Opencoremotion_Daemon_V1_SampleBatch()
    batch.samples = (1...count).map { number in
      let sample = MotionSample(
        timestamp: Double(1000 * index + number), accelerometer: SIMD3(0, 0, 9.81))
      return Wire.sample(sample, sensors: .accelerometer, receivedBootNanoseconds: 0)
    }
    message.samples = batch
    return message
  }
}
