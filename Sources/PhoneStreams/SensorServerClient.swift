// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionSensors
import NIOCore
import NIOPosix
import NIOWebSocket
import PhoneStreamDecoding
import WSClient

/// A live source reading the SensorServer Android app's WebSocket stream (the phone is the server).
///
/// Connects to `ws://<host>:<port>/sensors/connect?types=[…]` and turns each JSON `SensorEvent`
/// into a sample: Android's accelerometer already reads specific force in m/s² (+9.81 up at rest),
/// gyroscope rad/s, magnetometer µT, pressure hPa → kPa. Samples from the different sensors are put
/// in timestamp order by a short jitter buffer.
///
/// The phone's clock is its boot clock (`SensorEvent.timestamp`, ns since the phone booted).
/// Samples are ordered on it and, by default, delivered on this machine's boot clock (see
/// `PhoneStreamClock`); ``Configuration/clock`` `.phone` keeps the phone's seconds since boot
/// (shifted forward if a reconnection finds that the phone rebooted).
///
/// The connection opens with the first subscriber and closes when the last one cancels. If it
/// drops (or cannot be made) subscribers get a `.disconnected` failure and the client retries every
/// ``Configuration/reconnectDelay`` seconds; attempts that fail, or that the phone closes before
/// sending anything (4001, a requested sensor missing), are reported once per outage. A phone that leaves the network is noticed: the client
/// pings every ``Configuration/pingInterval`` seconds (no pong by the next ping closes the
/// connection) and gives up on a connection that brought nothing for ``Configuration/idleTimeout``
/// seconds, then reconnects. A phone that accepts TCP but never answers the upgrade is given up on
/// after ``Configuration/connectTimeout`` like an unreachable one. A stop does not wait for the
/// connection. Either closes the connection's socket at once, after a close frame (1001) if it
/// is open, on an event loop of the client's own that serves the attempts one after another and
/// is shut down only once the client has stopped and the connection has ended, so that SwiftNIO
/// has nothing to say on standard error. The first malformed message is reported; later ones
/// are counted and summarised at most every ten seconds (once that has
/// passed, also when no malformed message follows). A message over 64 KiB, in one frame or
/// several, ends the connection (closed with 1009), and the report says so; so does a break of
/// the WebSocket protocol (1002).
///
/// The WebSocket is the swift-websocket library's (SwiftNIO), set up as its client does but by
/// ``SensorServerWebSocketChannel``, which learns what the library does not pass on.
///
/// `@unchecked Sendable`: `hub` is set once in `init`; the mutable state is in `Locked` boxes.
public final class SensorServerClient: SensorSource, @unchecked Sendable {
  /// Where to connect and what to ask for.
  public struct Configuration: Sendable, Equatable {
    /// The phone's address (shown in the app).
    public var host: String
    /// The WebSocket port; default 8080 (the app's default).
    public var port: UInt16
    /// Android sensor types to request; default accelerometer, gyroscope, magnetic field.
    public var types: [String]
    /// Seconds to wait for the connection and handshake; default 3.
    public var connectTimeout: Double
    /// Seconds between reconnection attempts; default 2.
    public var reconnectDelay: Double
    /// Seconds between pings; a missing pong by the next ping ends the connection; default 5.
    public var pingInterval: Double
    /// Seconds without any message after which the connection is given up on; default 10.
    public var idleTimeout: Double
    /// How far (stream seconds) a sample must lag the newest before delivery; default 0.05 s.
    public var sampleHoldTime: Double
    /// The longest a sample waits (wall seconds) when nothing newer arrives; default 0.2 s.
    public var maximumSampleDelay: Double
    /// The clock of sample timestamps; default `PhoneStreamClock.receiverBoot` (this machine's
    /// boot clock, as `BootClock`).
    public var clock: PhoneStreamClock

    /// The sensor types requested by default.
    public static let defaultTypes = [
      "android.sensor.accelerometer", "android.sensor.gyroscope", "android.sensor.magnetic_field",
    ]

    /// Creates a configuration; every parameter but `host` has the default stated on its property.
    /// Short type names (`gyroscope_uncalibrated`) are expanded to `android.sensor.…`.
    public init(
      host: String, port: UInt16 = 8080, types: [String] = Configuration.defaultTypes,
      connectTimeout: Double = 3, reconnectDelay: Double = 2, sampleHoldTime: Double = 0.05,
      maximumSampleDelay: Double = 0.2, clock: PhoneStreamClock = .receiverBoot,
      pingInterval: Double = 5, idleTimeout: Double = 10
    ) {
      self.host = host
      self.port = port
      self.types = types.map(SensorServerReading.fullType)
      self.connectTimeout = connectTimeout
      self.reconnectDelay = reconnectDelay
      self.sampleHoldTime = sampleHoldTime
      self.maximumSampleDelay = maximumSampleDelay
      self.clock = clock
      self.pingInterval = pingInterval
      self.idleTimeout = idleTimeout
    }

    /// The request path with the percent-encoded JSON array of types.
    var path: String {
      let array = "[" + types.map { "\"\($0)\"" }.joined(separator: ",") + "]"
      var allowed = CharacterSet.alphanumerics
      allowed.insert(charactersIn: "-._~")
      return "/sensors/connect?types="
        + (array.addingPercentEncoding(withAllowedCharacters: allowed) ?? array)
    }
  }

  /// The configuration the client was created with.
  public let configuration: Configuration
  public var name: String { "sensorserver:ws://\(configuration.host):\(configuration.port)" }
  public let availableSensors: SensorSet
  /// The phone decides the rate (the app's sampling-period setting; default 200 ms, i.e. 5 Hz).
  public var supportedSampleRates: ClosedRange<Double> { 1...500 }

  private var hub: LiveSourceHub!
  private let connected = Locked(false)
  private let logger: Logger = {
    var logger = Logger(label: "OpenCoreMotion.SensorServerClient")
    logger.logLevel = .warning
    return logger
  }()

  /// The largest message accepted from the phone (one sensor event is about 150 bytes); also
  /// the largest frame SwiftNIO's frame decoder accepts, so that nothing larger is buffered.
  static let maximumMessageSize = 1 << 16

  /// Creates a client; nothing connects until the first subscription.
  public init(configuration: Configuration) {
    self.configuration = configuration
    availableSensors = configuration.types.reduce(into: []) {
      $0.formUnion(SensorServerReading.sensor(for: $1))
    }
    hub = LiveSourceHub(name: "SensorServer", failureLabel: "SensorServer client") { [weak self] in
      guard let self else { return nil }
      return PhoneStreamWorker(label: "SensorServer", onExecutor: { [self] in await run(on: $0) })
    }
  }

  /// Whether the WebSocket is currently open.
  public var isConnected: Bool { connected.withLock { $0 } }

  public func subscribe(
    requestedSampleRate: Double, _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    hub.subscribe(handler)
  }

  // MARK: - Connection loop

  /// What one connection attempt's state is, shared by its message and watchdog tasks.
  private struct Session: Sendable {
    var reorder: SampleReorderBuffer
    var clock: SensorServerClockContinuity
    var isOpen = false
    /// Whether the phone sent a message on this connection.
    var receivedMessage = false
    var lastActivity: Double
    /// The open connection's writer, to close it properly when the peer falls silent or the
    /// client stops.
    var outbound: WebSocketOutboundWriter?
    /// Whether the phone sent a message over ``maximumMessageSize`` in several frames (the
    /// connection is closed).
    var sentTooLargeMessage = false
    /// Whether the phone's frames did not make messages (the connection is closed).
    var brokeFraming = false
    /// Whether the client is stopping (its task was cancelled): the watchdog ends the attempt.
    var isStopRequested = false
  }

  /// Why the watchdog ends a connection.
  private enum Ending: Sendable {
    case connectTimeout
    case idle
    case stopped
  }

  /// What a task of an attempt came back with.
  private enum AttemptEvent: Sendable {
    /// The WebSocket client returned: the server's close frame, if any, or why it failed.
    case connectionEnded(Result<WebSocketCloseFrame?, any Error>)
    /// The watchdog's verdict; `nil` when it was cancelled because the connection had ended.
    case watchdog(Ending?)
  }

  private func run(on executor: PhoneStreamExecutor) async {
    let address = "ws://\(configuration.host):\(configuration.port)"
    var clockOffset = 0.0
    var reorder = SampleReorderBuffer(
      holdTime: configuration.sampleHoldTime, maximumDelay: configuration.maximumSampleDelay,
      clock: configuration.clock)
    var reportedOutage = false
    // One event loop serves the attempts one after another and is shut down when the client
    // stops, once the last attempt has ended: the attempts close their sockets on it, never by
    // shutting it down (see `attempt(_:on:)`).
    let eventLoopGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    while !Task.isCancelled {
      let session = Locked(
        Session(
          reorder: reorder,
          clock: SensorServerClockContinuity(offset: clockOffset, needsCheck: true),
          lastActivity: phoneStreamUptime()))
      let outcome = await connect(session, on: eventLoopGroup, executor: executor)
      connected.withLock { $0 = false }
      // `nil`: stopped during the attempt, which shuts the group down when it has ended.
      guard let ending = outcome else { return }
      let (broughtData, finalState) = session.withLock { ($0.receivedMessage, $0) }
      reorder = finalState.reorder
      clockOffset = finalState.clock.offset
      hub.deliver(reorder.release(now: phoneStreamUptime(), flushAll: true).map(SourceEvent.sample))
      if Task.isCancelled { break }
      // A dropped connection is always reported; failed attempts once per outage. A connection
      // the phone closes before sending anything counts as a failed attempt: SensorServer closes
      // at once (4001) when a requested sensor is missing, and reporting each of those reported
      // the same refusal every reconnection delay for as long as the program ran.
      if broughtData || !reportedOutage {
        reportedOutage = true
        // Advisory: the client reconnects, and the stream resumes with the phone.
        hub.deliver(
          .failure(
            SourceFailure(
              .disconnected, "SensorServer at \(address): \(ending); reconnecting",
              isFatal: false)))
      }
      guard await phoneStreamPause(configuration.reconnectDelay) else { break }
    }
    // Nothing runs on it any more: the attempt has ended, and the WebSocket library was never
    // cancelled, so it left no task behind that closes the channel later.
    try? await eventLoopGroup.shutdownGracefully()
  }

  /// Makes one connection and serves it until it ends; returns why it ended, or `nil` when the
  /// client stopped first.
  ///
  /// The attempt runs in a task of its own that is never cancelled: the WebSocket library answers
  /// a cancellation of an open connection by starting an unstructured task that closes the
  /// channel, which nothing can wait for, so it could run after the event loop had been shut
  /// down (SwiftNIO then printed "Cannot schedule tasks on an EventLoop that has already shut
  /// down" on standard error). A cancellation of this task (the client stopping) is passed to
  /// the attempt's watchdog instead, and this returns at once; the watchdog closes the connection's socket (see `attempt(_:on:)`).
  /// The attempt then shuts `eventLoopGroup` down itself once its connection has ended, since
  /// nothing else will use it.
  private func connect(
    _ session: Locked<Session>, on eventLoopGroup: MultiThreadedEventLoopGroup,
    executor: PhoneStreamExecutor
  ) async -> AttemptHandoff.Outcome? {
    let handoff = AttemptHandoff()
    Task(executorPreference: executor) { [self] in
      let ending = await attempt(session, on: eventLoopGroup)
      if !handoff.finish(ending) { try? await eventLoopGroup.shutdownGracefully() }
    }
    return await withTaskCancellationHandler {
      await handoff.outcome()
    } onCancel: {
      session.withLock { $0.isStopRequested = true }
      handoff.abandon()
    }
  }

  /// One attempt: the WebSocket client and the watchdog, until the connection has ended.
  ///
  /// When the watchdog ends an open connection that fell silent, it is closed the WebSocket way
  /// (the close handshake times out after a second when the peer is gone). A stop, or the connect
  /// timeout, closes the connection's socket at once, open or in the handshake, on the loop that
  /// is still running (``SensorServerConnectionState``): the library waits for the upgrade answer
  /// without any timeout, so a phone (or a captive portal) that accepts TCP but never answers
  /// would otherwise hold the attempt, and with it the reconnection loop, forever. Shutting the
  /// loop down to close the socket, as the client did before it could reach the channel, let
  /// the library go on with an answer read just then on a loop that had been shut down (SwiftNIO
  /// printed "Cannot schedule tasks on an EventLoop that has already shut down", and the
  /// attempt could hang).
  private func attempt(
    _ session: Locked<Session>, on eventLoopGroup: MultiThreadedEventLoopGroup
  ) async -> String {
    let ping = Duration.nanoseconds(Int64(max(0.05, min(configuration.pingInterval, 3_600)) * 1e9))
    let connection = SensorServerConnectionState()
    let (result, ending) = await withTaskGroup(of: AttemptEvent.self) { group in
      group.addTask { [self] in
        do {
          let channel = SensorServerWebSocketChannel(
            host: configuration.host, port: configuration.port, target: configuration.path,
            maximumFrameSize: Self.maximumMessageSize, autoPing: .enabled(timePeriod: ping),
            closeTimeout: .seconds(1), state: connection
          ) { [self] inbound, outbound, _ in
            session.withLock {
              $0.isOpen = true
              $0.lastActivity = phoneStreamUptime()
              $0.outbound = outbound
              // Under the session's lock: a connection that opens after a stop is not reported.
              if !$0.isStopRequested { connected.withLock { $0 = true } }
            }
            try await serve(inbound, outbound: outbound, session: session)
          }
          let closeFrame = try await ClientConnection(
            channel, address: .hostname(configuration.host, port: Int(configuration.port)),
            eventLoopGroup: eventLoopGroup, logger: logger
          ).run()
          return .connectionEnded(.success(closeFrame))
        } catch {
          return .connectionEnded(.failure(error))
        }
      }
      group.addTask { [self] in .watchdog(await watch(session)) }
      var ending: Ending?
      while let event = await group.next() {
        switch event {
        case .connectionEnded(let result):
          group.cancelAll()  // The watchdog is all that is left.
          return (result, ending)
        case .watchdog(nil):
          continue
        case .watchdog(.idle):
          ending = .idle
          try? await session.withLock { $0.outbound }?.close(
            .goingAway, reason: "nothing received")
        case .watchdog(let verdict?):
          // After a stop nobody waits for the attempt: its socket is closed now, not after a
          // close handshake that a gone phone never answers, or a handshake still in progress.
          // (A connection that opens just as the connect timeout passes is closed too.)
          ending = verdict
          connection.close(
            goingAwayBecause: verdict == .stopped ? "client stopped" : "no connection in time")
        }
      }
      // Not reached: the connection's task always comes back.
      return (Result<WebSocketCloseFrame?, any Error>.success(nil), ending)
    }
    return describe(result, ending: ending, session: session, connection: connection)
  }

  /// Why an attempt ended, for the failure that reports it.
  private func describe(
    _ result: Result<WebSocketCloseFrame?, any Error>, ending: Ending?, session: Locked<Session>,
    connection: SensorServerConnectionState
  ) -> String {
    switch ending {
    case .connectTimeout?: return "no connection within \(configuration.connectTimeout) s"
    case .idle?: return "nothing received for \(configuration.idleTimeout) s (phone gone?)"
    case .stopped?: return "client stopped"
    case nil: break
    }
    // Before the result: each of these closed the connection, which then ended without the
    // phone's close frame or with a channel error.
    let (sentTooLargeMessage, brokeFraming) = session.withLock {
      ($0.sentTooLargeMessage, $0.brokeFraming)
    }
    switch connection.protocolError {
    case .invalidFrameLength?: return Self.tooLargeMessageEnding
    case let error?: return "the phone broke the WebSocket protocol (\(error); close 1002)"
    case nil: break
    }
    if sentTooLargeMessage { return Self.tooLargeMessageEnding }
    if brokeFraming { return "the phone broke the WebSocket protocol (frames; close 1002)" }
    switch result {
    case .success(let closeFrame):
      guard let closeFrame else { return "connection closed" }
      return Self.describeClose(
        code: UInt16(webSocketErrorCode: closeFrame.closeCode), reason: closeFrame.reason ?? "")
    case .failure(let error):
      return phoneStreamSocketErrorDescription(error) ?? "connection lost (\(error))"
    }
  }

  /// Why a connection ended on which the phone sent a message over ``maximumMessageSize``.
  static let tooLargeMessageEnding =
    "the phone sent a message larger than \(maximumMessageSize >> 10) KiB (close 1009)"

  /// Reads messages until the connection ends.
  ///
  /// The frames are put together here, not by the library: it closes the connection over its
  /// size limit and ends with an error of its own that the client cannot tell from others.
  private func serve(
    _ inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, session: Locked<Session>
  ) async throws {
    var pending: (opcode: WebSocketDataFrame.Opcode, bytes: ByteBuffer)?
    for try await frame in inbound {
      switch (frame.opcode, pending) {
      case (.text, nil), (.binary, nil):
        pending = (frame.opcode, frame.data)
      case (.continuation, var message?):
        // Frames of one message are at most `maximumMessageSize` each (SwiftNIO's decoder).
        guard message.bytes.readableBytes + frame.data.readableBytes <= Self.maximumMessageSize
        else {
          session.withLock { $0.sentTooLargeMessage = true }
          try await outbound.close(
            .messageTooLarge, reason: "message larger than \(Self.maximumMessageSize >> 10) KiB")
          return
        }
        pending = nil  // `message.bytes` is then the buffer's only reference: no copy.
        message.bytes.writeImmutableBuffer(frame.data)
        pending = message
      default:
        // A continuation with no message, or a new message before the last one ended.
        session.withLock { $0.brokeFraming = true }
        try await outbound.close(.protocolError, reason: "unexpected \(frame.opcode) frame")
        return
      }
      guard frame.fin, let message = pending else { continue }
      pending = nil
      deliver(message.opcode == .text ? .text(message.bytes) : .binary, session: session)
    }
  }

  /// What a message of the phone holds.
  private enum Message {
    case text(ByteBuffer)
    case binary
  }

  /// Turns a message into samples, or into a report of a malformed message.
  private func deliver(_ message: Message, session: Locked<Session>) {
    let defaultType = configuration.types.count == 1 ? configuration.types[0] : nil
    let now = phoneStreamUptime()
    var events: [SourceEvent] = []
    session.withLock {
      $0.receivedMessage = true
      $0.lastActivity = now
    }
    switch message {
    case .text(let bytes):
      do {
        // As the library read text: bytes that are not UTF-8 become U+FFFD, and the JSON decoder
        // reports the message as malformed.
        let reading = try SensorServerReading(text: String(buffer: bytes), defaultType: defaultType)
        if var sample = try reading.sample() {
          session.withLock { state in
            sample.timestamp = state.clock.adjust(
              sample.timestamp, after: state.reorder.lastReleasedTimestamp)
            state.reorder.insert([sample], now: now)
          }
        }
      } catch {
        let failure = (error as? SourceFailure) ?? SourceFailure(.malformedData, "\(error)")
        events += malformed(failure.kind, failure.message, now: now)
      }
    case .binary:
      events += malformed(
        .malformedData, "SensorServer sent a binary message; expected JSON text", now: now)
    }
    events += session.withLock {
      $0.reorder.releaseEvents(now: now, source: "SensorServer client")
    }
    if !session.withLock({ $0.isStopRequested }) { hub.deliver(events) }
  }

  /// Seconds between reports of malformed messages after the first.
  static let malformedReportInterval = 10.0

  /// Malformed messages not yet reported, the latest of them, and when the last report went out.
  private let malformedMessages = Locked(
    (unreported: 0, latest: SourceFailure?.none, lastReport: -Double.infinity))

  /// The advisory failure for a malformed message, if one is due: the first is reported as it
  /// is, later ones are counted and summarised at most every ``malformedReportInterval`` seconds,
  /// so a broken or hostile phone sending garbage as fast as it can does not flood subscribers.
  private func malformed(
    _ kind: SourceFailure.Kind, _ message: String, now: Double
  ) -> [SourceEvent] {
    malformedMessages.withLock {
      $0.unreported += 1
      $0.latest = SourceFailure(kind, message, isFatal: false)
    }
    return dueMalformedReport(now: now)
  }

  /// The report of the malformed messages counted since the last one, once
  /// ``malformedReportInterval`` has passed. The watchdog asks too, not only the next malformed
  /// message: a burst of garbage followed by good messages was otherwise counted and never told.
  private func dueMalformedReport(now: Double) -> [SourceEvent] {
    let due = malformedMessages.withLock { state -> (count: Int, latest: SourceFailure)? in
      guard let latest = state.latest, state.unreported > 0,
        now - state.lastReport >= Self.malformedReportInterval
      else { return nil }
      defer { state = (0, nil, now) }
      return (state.unreported, latest)
    }
    guard let due else { return [] }
    let text =
      due.count == 1
      ? due.latest.message
      : "\(due.count) malformed messages since the last report; latest: \(due.latest.message)"
    return [.failure(SourceFailure(due.latest.kind, text, isFatal: false))]
  }

  /// Releases due samples every few milliseconds; returns when the connection must end: it did
  /// not open in time, went silent, or the client is stopping (`nil` if cancelled first).
  private func watch(_ session: Locked<Session>) async -> Ending? {
    let start = phoneStreamUptime()
    while await phoneStreamPause(0.02) {
      let now = phoneStreamUptime()
      let (isOpen, last, isStopRequested, events) = session.withLock { state in
        (
          state.isOpen, state.lastActivity, state.isStopRequested,
          state.reorder.releaseEvents(now: now, source: "SensorServer client")
        )
      }
      // After a stop the attempt only ends its connection: a later subscriber gets nothing of it.
      if !isStopRequested { hub.deliver(events + dueMalformedReport(now: now)) }
      if isStopRequested { return .stopped }
      if !isOpen && now - start > configuration.connectTimeout { return .connectTimeout }
      if isOpen && now - last > configuration.idleTimeout { return .idle }
    }
    return nil
  }

  /// A readable explanation of a close frame, using SensorServer's documented codes.
  static func describeClose(code: UInt16?, reason: String) -> String {
    let meaning: String
    switch code {
    case nil: meaning = "connection closed"
    case 1000?: meaning = "closed normally"
    case 1001?: meaning = "server going away"
    case 4001?: meaning = "a requested sensor is not on the phone (request fewer with ?types=…)"
    case 4002?: meaning = "unsupported request"
    case 4003?: meaning = "request parameter missing"
    case 4004?: meaning = "server stopped"
    case 4005?: meaning = "closed by the user"
    case 4006?: meaning = "invalid JSON array of sensor types"
    case 4007?: meaning = "too few sensors requested"
    case 4008?: meaning = "no sensor specified"
    case 4009?: meaning = "permission denied on the phone"
    case let other?: meaning = "closed with code \(other)"
    }
    let detail = reason.isEmpty ? "" : " (\(printableExcerpt(reason, maximumCharacters: 120)))"
    return "\(meaning)\(code.map { " [\($0)]" } ?? "")\(detail)"
  }
}

/// An attempt's outcome (why it ended), handed from the attempt's task to the connection loop
/// unless the loop stopped waiting first (the client stopped). Whichever of the two comes first
/// decides who shuts the event loop group down: the loop when it got the outcome, the attempt
/// otherwise.
private final class AttemptHandoff: Sendable {
  typealias Outcome = String

  private enum Phase {
    case running
    case waiting(CheckedContinuation<Outcome?, Never>)
    case finished(Outcome)
    case abandoned
  }

  private let phase = Locked(Phase.running)

  /// The attempt's outcome, or `nil` once ``abandon()`` has been called.
  func outcome() async -> Outcome? {
    await withCheckedContinuation { continuation in
      let ready = phase.withLock { phase -> Outcome?? in
        switch phase {
        case .running, .waiting:  // Called once: never `.waiting` here.
          phase = .waiting(continuation)
          return .none
        case .finished(let outcome): return .some(outcome)
        case .abandoned: return .some(nil)
        }
      }
      if let ready { continuation.resume(returning: ready) }
    }
  }

  /// Stops waiting: ``outcome()`` returns `nil`, now or when called.
  func abandon() {
    let waiting = phase.withLock { phase -> CheckedContinuation<Outcome?, Never>? in
      switch phase {
      case .running:
        phase = .abandoned
        return nil
      case .waiting(let continuation):
        phase = .abandoned
        return continuation
      case .finished, .abandoned:
        return nil
      }
    }
    waiting?.resume(returning: nil)
  }

  /// Hands `outcome` over; returns `false` when nobody waits for it any more.
  func finish(_ outcome: Outcome) -> Bool {
    let (handedOver, waiting) = phase.withLock {
      phase -> (Bool, CheckedContinuation<Outcome?, Never>?) in
      switch phase {
      case .running:
        phase = .finished(outcome)
        return (true, nil)
      case .waiting(let continuation):
        phase = .finished(outcome)
        return (true, continuation)
      case .finished, .abandoned:
        return (false, nil)
      }
    }
    waiting?.resume(returning: outcome)
    return handedOver
  }
}
