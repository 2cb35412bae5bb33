// SPDX-License-Identifier: Apache-2.0

import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import MotionSensors
import MotionServerSupport
import NIOCore
import PhoneStreamDecoding
import ServiceLifecycle

/// A live source fed by the Sensor Logger app's HTTP push: we run a small HTTP server and the
/// phone POSTs batches of JSON readings to it.
///
/// In the app, enable HTTP Push in the data-streaming settings with the URL
/// `http://<this machine>:<port>/<token>` (any path when no ``Configuration/token`` is set), then
/// start a recording. Every message is answered 200 at once. Messages are put back in
/// `messageId` order and samples in timestamp order (see ``Configuration``) before delivery;
/// units and signs are converted to `MotionSample`'s (specific force in m/s², rad/s, µT, kPa).
///
/// Once pushes have come, a silence of 10 s (the phone's recording stopped, the phone left the
/// network, or a push stalled halfway) is reported once, as an advisory `.disconnected` failure;
/// the stream resumes with the next push.
///
/// The phone's clock is its UTC epoch time (Sensor Logger's `time`, epoch nanoseconds, ÷ 10⁹).
/// Samples are ordered on it and, by default, delivered on this machine's boot clock (see
/// `PhoneStreamClock`); ``Configuration/clock`` `.phone` keeps the epoch seconds.
///
/// The listening socket is opened when the first subscriber arrives and closed (port free again)
/// when the last one cancels. A port that cannot be opened is reported as a `.busy` failure.
///
/// One receiver takes one phone. Two phones pushing to it interleave two recordings (each message
/// looks like a new one after the other phone's, on another clock), so many samples are dropped
/// as late (counted and reported) and the rest mix both phones' motion; the first message from a
/// second `deviceId` is reported once, as an advisory failure naming both. Give each phone a
/// receiver on its own port.
///
/// The server is Hummingbird (SwiftNIO). Anything on the network may connect, so: request heads
/// are limited to 16 KiB and 100 header fields (431 beyond, see
/// `SensorLoggerRequestHeadLimit`), bodies are
/// limited (``Configuration/maximumBodySize``, 413 beyond), idle connections are closed
/// (``Configuration/idleTimeout``), at most ``Configuration/maximumConnections`` are served at
/// once, requests carrying an `Origin` header (sent by browsers, so a web page cannot post to it)
/// or a content type other than JSON are refused, and no CORS header is ever sent. A malformed
/// body is answered 400 and reported as an advisory failure (`SourceFailure.isFatal` false).
///
/// Every sensor is offered, since the app decides what it streams, until a recording turns out to
/// stream no gyroscope or no accelerometer (or neither, as one of the magnetometer and the
/// barometer only): it is then removed from ``availableSensors`` (until a reading of it or a new
/// recording comes), so that `CMMotionManager` reports it and device motion as not available and
/// ends updates started before.
///
/// `@unchecked Sendable`: `hub` is set once in `init`; the mutable state is in `Locked` boxes.
public final class SensorLoggerReceiver: SensorSource, @unchecked Sendable {
  /// Which sign and unit convention the phone's readings follow.
  public enum Platform: String, Sendable, Equatable, CaseIterable {
    /// Detect from the stream (an `accuracy` field, the uncalibrated accelerometer's magnitude, or
    /// gravity against the orientation); accelerometer samples wait until it is known.
    case automatic = "auto"
    /// iOS without "Standardise Units & Frames": Core Motion's sign, uncalibrated accelerometer in
    /// g.
    case iOS = "ios"
    /// Android, or iOS with "Standardise Units & Frames" on: Android's sign, m/s².
    case android = "android"

    var convention: SensorLoggerConverter.Convention? {
      switch self {
      case .automatic: return nil
      case .iOS: return .iOS
      case .android: return .android
      }
    }
  }

  /// Where to listen and how to reorder.
  public struct Configuration: Sendable, Equatable {
    /// The address to bind; default `127.0.0.1` (this machine only). A phone on the LAN needs the
    /// machine's LAN address (`192.168.1.5`) or `0.0.0.0` (every interface), given explicitly.
    public var bindAddress: String
    /// The TCP port; default 8000. Port 0 picks a free one (see
    /// ``SensorLoggerReceiver/listeningPort``).
    public var port: UInt16
    /// The phone's convention; default ``Platform/automatic``.
    public var platform: Platform
    /// How long (wall seconds) an early message waits for the messages before it; default 0.5 s.
    public var messageReorderWindow: Double
    /// How far (stream seconds) a sample must lag the newest before delivery; default 0.1 s.
    public var sampleHoldTime: Double
    /// The longest a sample waits (wall seconds) when nothing newer arrives; default 0.3 s.
    public var maximumSampleDelay: Double
    /// The largest accepted request body in bytes; default 1 MiB (a one-second batch of the motion
    /// sensors at 100 Hz is about 100 kB; turn off camera and audio streams in the app).
    public var maximumBodySize: Int
    /// The clock of sample timestamps; default `PhoneStreamClock.receiverBoot` (this machine's
    /// boot clock, as `BootClock`).
    public var clock: PhoneStreamClock
    /// A secret the push URL's path must start with (`http://host:port/<token>`), or `nil` (any
    /// path). Sensor Logger accepts any URL, so this keeps other devices on the network from
    /// posting readings unless they know the token (it travels in plain HTTP, see the docs).
    public var token: String?
    /// Seconds a connection may stay idle (no request in progress) before it is closed; default 10.
    public var idleTimeout: Double
    /// The most connections served at once; more wait in the listen queue; default 64.
    public var maximumConnections: Int
    /// The most connections one peer address holds at once, so that one machine's idle
    /// connections cannot fill the receiver; default 4 (Sensor Logger pushes one request at a
    /// time). At the limit a new connection closes the peer's oldest one that has had no push
    /// accepted yet, or is itself closed when every one has. Every connection from this machine
    /// counts as one peer, whichever of its addresses (127.0.0.2, …) it comes from.
    public var maximumConnectionsPerPeer: Int
    /// Seconds a request body may take to arrive (408 beyond); default 10.
    public var requestBodyTimeout: Double

    /// Creates a configuration; every parameter has the default stated on its property.
    public init(
      bindAddress: String = "127.0.0.1", port: UInt16 = 8000, platform: Platform = .automatic,
      messageReorderWindow: Double = 0.5, sampleHoldTime: Double = 0.1,
      maximumSampleDelay: Double = 0.3,
      maximumBodySize: Int = 1 << 20, clock: PhoneStreamClock = .receiverBoot,
      token: String? = nil, idleTimeout: Double = 10, maximumConnections: Int = 64,
      requestBodyTimeout: Double = 10, maximumConnectionsPerPeer: Int = 4
    ) {
      self.bindAddress = bindAddress
      self.port = port
      self.platform = platform
      self.messageReorderWindow = messageReorderWindow
      self.sampleHoldTime = sampleHoldTime
      self.maximumSampleDelay = maximumSampleDelay
      self.maximumBodySize = maximumBodySize
      self.clock = clock
      self.token = token
      self.idleTimeout = idleTimeout
      self.maximumConnections = maximumConnections
      self.requestBodyTimeout = requestBodyTimeout
      self.maximumConnectionsPerPeer = maximumConnectionsPerPeer
    }
  }

  /// The configuration the receiver was created with.
  public let configuration: Configuration
  public var name: String { "sensorlogger:\(configuration.bindAddress):\(configuration.port)" }
  /// Every sensor (the app chooses what it streams) but a gyroscope or an accelerometer the
  /// current recording turned out not to stream: the "no gyroscope" ("no accelerometer") notice
  /// comes after this has dropped it, so that device motion (and the accelerometer) reads as not
  /// available and updates started before end.
  public var availableSensors: SensorSet {
    let offered: SensorSet = [.accelerometer, .gyroscope, .magnetometer, .barometer]
    return offered.subtracting(stream.withLock { $0.state?.lackingSensors ?? [] })
  }
  /// The phone decides the rate (Sensor Logger offers up to 100 Hz and more on some phones).
  public var supportedSampleRates: ClosedRange<Double> { 1...200 }

  private var hub: LiveSourceHub!
  private let boundPort = Locked<UInt16?>(nil)
  /// The decoding state of the current listening session (`nil` while not listening), and which
  /// session it belongs to: a stopped session's worker can outlive `stop`'s wait (a request still
  /// trickling in holds the server's graceful shutdown), and its last flush must then leave the
  /// next session's state alone.
  private let stream = Locked<(session: UInt64, state: SensorLoggerStream?)>((0, nil))
  /// Requests refused so far, and the count at which the next report is due.
  private let refused = Locked(PowerOfTenReports())
  /// Requests whose head was too large (see ``SensorLoggerRequestHeadLimit``), and the count at
  /// which the next report is due.
  private let oversizedHeads = Locked(PowerOfTenReports())
  /// Request bodies refused for their size (413), and when to report: every one used to reach
  /// every subscriber, so a peer could flood them with one failure per request.
  private let oversizedBodies = Locked(PowerOfTenReports())
  /// The server's own diagnostics: only what is critical (a stop logs expected cancellations as
  /// errors, and every refused request is already answered and reported).
  private let quietLogger: Logger = {
    var logger = Logger(label: "OpenCoreMotion.SensorLoggerReceiver")
    logger.logLevel = .critical
    return logger
  }()

  /// Creates a receiver; nothing listens until the first subscription.
  public init(configuration: Configuration = Configuration()) {
    self.configuration = configuration
    hub = LiveSourceHub(
      name: "SensorLogger", failureLabel: "Sensor Logger receiver",
      startWorker: { [weak self] in try self?.startWorker() },
      didStop: { [weak self] in self?.boundPort.withLock { $0 = nil } })
  }

  /// The port actually listened on while subscribed (useful with port 0), `nil` when not listening.
  public var listeningPort: UInt16? { boundPort.withLock { $0 } }

  public func subscribe(
    requestedSampleRate: Double, _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    hub.subscribe(handler)
  }

  /// How long `subscribe` waits for the listener to be bound before reporting a failure.
  private static let startTimeout = 5.0
  /// How often held messages and samples are checked for release (seconds).
  private static let tickInterval = 0.02

  /// Starts the server and waits (bounded) until it listens; a port in use becomes a `.busy`
  /// failure, see ``LiveSourceHub``.
  private func startWorker() throws -> PhoneStreamWorker {
    let session = stream.withLock { current -> UInt64 in
      current.session &+= 1
      current.state = SensorLoggerStream(
        convention: configuration.platform.convention,
        messageReorderWindow: configuration.messageReorderWindow,
        sampleHoldTime: configuration.sampleHoldTime,
        maximumSampleDelay: configuration.maximumSampleDelay, clock: configuration.clock)
      return current.session
    }
    let started = StartSignal()
    // Stopped by draining the server (cancelling a Hummingbird server that is accepting a
    // connection can trap in NIO), not by Hummingbird's graceful shutdown, which needs a free
    // pool thread (see ServerDrain); cancellation is only the fallback after the grace period.
    let drain = ServerDrain()
    let server = try makeServer(started: started, drain: drain)
    let worker = PhoneStreamWorker(label: "SensorLogger", gracefulStop: { drain.drain() }) {
      [self] in
      await withTaskGroup(of: Void.self) { group in
        group.addTask {
          do {
            try await server.run()
            // Ignored when it had started: the server ended because it was stopped.
            started.fail(SourceFailure(.other, "Sensor Logger receiver: the server ended at once"))
          } catch {
            started.fail(error)
          }
        }
        group.addTask { [self] in
          while await phoneStreamPause(Self.tickInterval) {
            let now = phoneStreamUptime()
            hub.deliver(
              stream.withLock { current in
                current.session == session ? current.state?.tick(now: now) ?? [] : []
              })
          }
        }
        await group.next()
        group.cancelAll()
      }
      let now = phoneStreamUptime()
      hub.deliver(
        stream.withLock { current in
          // A later session's state is not this worker's to flush or clear.
          guard current.session == session else { return [] }
          defer { current.state = nil }
          return current.state?.flush(now: now) ?? []
        })
    }
    switch started.wait(timeout: Self.startTimeout) {
    case .listening(let port):
      boundPort.withLock { $0 = port }
      return worker
    case .failed(let error):
      worker.stop(timeout: LiveSourceHub.stopTimeout)
      throw Self.describeStartFailure(
        error, address: configuration.bindAddress, port: configuration.port)
    case nil:
      worker.stop(timeout: LiveSourceHub.stopTimeout)
      throw SourceFailure(
        .other, "Sensor Logger receiver: the server did not start within \(Self.startTimeout) s")
    }
  }

  private static func describeStartFailure(
    _ error: any Error, address: String, port: UInt16
  ) -> SourceFailure {
    let endpoint = "\(address):\(port)"
    if let io = error as? IOError, io.errnoCode == EADDRINUSE {
      return SourceFailure(.busy, "Sensor Logger receiver: \(endpoint) is already in use")
    }
    if "\(error)".contains("Address already in use") {
      return SourceFailure(.busy, "Sensor Logger receiver: \(endpoint) is already in use")
    }
    return SourceFailure(.other, "Sensor Logger receiver: cannot listen on \(endpoint): \(error)")
  }

  /// The HTTP server, run on its own rather than in a Hummingbird `Application`: an application
  /// also runs a date cache, whose end (by cancellation or graceful shutdown) waits for a free
  /// thread of Swift concurrency's pool (ServiceLifecycle's `CancellationWaiter` resumes from an
  /// unstructured task), so with the pool full its stop could only end by the worker's
  /// cancellation. Answers carry no `Date` header; Sensor Logger reads none.
  private func makeServer(started: StartSignal, drain: ServerDrain) throws -> any Service {
    let onOverflow: @Sendable () -> Void = { [weak self] in self?.countOversizedHead() }
    // Every connection from this machine is one peer, so a phone pushing through a tunnel to
    // localhost (adb reverse, USB) shares its slots with every local process: one that kept
    // reopening idle connections, each closed only by the idle timeout, held them all. A
    // connection that has not yet had a push accepted (respond(to:context:proving:)) now gives
    // way to a newer one of its peer, oldest first.
    let peerLimit = PeerConnectionLimit(
      limit: configuration.maximumConnectionsPerPeer, evictsUnprovenConnections: true,
      onEvictionDue: { [weak self] total in self?.reportPeerEvictions(total) }
    ) { [weak self] total in self?.reportPeerExcess(total) }
    let idle = TimeAmount.nanoseconds(Int64(max(0.05, min(configuration.idleTimeout, 3_600)) * 1e9))
    let server: HTTPServerBuilder = .http1(
      configuration: .init(
        additionalChannelHandlers: [
          PeerConnectionLimit.Handler<HTTPConnectionStateHandler.InboundIn>(peerLimit),
          ServerDrain.Handler<HTTPConnectionStateHandler.InboundIn>(drain),
          SensorLoggerRequestHeadLimit.Handler(onOverflow: onOverflow),
        ],
        idleTimeout: idle, httpDecoderConfiguration: SensorLoggerRequestHeadLimit.httpDecoder))
    return try server.buildServer(
      configuration: ServerConfiguration(
        address: .hostname(configuration.bindAddress, port: Int(configuration.port)),
        serverName: nil,
        availableConnectionsDelegate: MaximumAvailableConnections(
          max(1, configuration.maximumConnections), logger: quietLogger)),
      eventLoopGroup: NIOSingletons.posixEventLoopGroup, logger: quietLogger,
      responder: { [self] request, writer, channel in
        let context = SensorLoggerRequestContext(
          source: ApplicationRequestContextSource(channel: channel, logger: quietLogger))
        let response = await respond(to: request, context: context, proving: peerLimit)
        try await writer.write(response: response.head, body: response.body)
      },
      onServerRunning: { channel in
        drain.listening(on: channel)
        started.listening(UInt16(clamping: channel.localAddress?.port ?? 0))
      })
  }

  // MARK: - Requests

  /// The statuses of requests refused without reading them (wrong path, a browser, a method or
  /// content type the phone does not use).
  private static let refusals: Set<HTTPResponse.Status> = [
    .forbidden, .notFound, .methodNotAllowed, .unsupportedMediaType,
  ]

  /// Answers a request. Only a push the stream accepted keeps its connection open: every other
  /// answer (a refusal, a page for a person, a malformed body) closes it, so a peer cannot hold
  /// the few connection slots with keep-alive requests, however often it sends them. Refusals are
  /// counted and reported (advisory) the first time and at every power of ten. An accepted push
  /// proves its connection to `peerLimit`: it no longer gives way to newer connections of its
  /// peer, which idle ones do (with a token only its holder gets there).
  private func respond(
    to request: Request, context: SensorLoggerRequestContext, proving peerLimit: PeerConnectionLimit
  ) async -> Response {
    var response = await answer(to: request, context: context)
    let isPush = request.method == .post || request.method == .put
    if isPush && response.status == .ok {
      peerLimit.prove(ObjectIdentifier(context.channel))
      return response
    }
    response.headers[.connection] = "close"
    context.closeAfterAnswer()
    if Self.refusals.contains(response.status) {
      let report = refused.withLock { $0.count() }
      if let report {
        advise(
          .other,
          "\(report) request(s) so far were refused (unknown path, a web page, or a method or "
            + "content type Sensor Logger does not use); their connections were closed")
      }
    }
    return response
  }

  /// Counts a request refused with 431 (on its connection's event loop) and reports it
  /// (advisory) the first time and at every power of ten.
  private func countOversizedHead() {
    let report = oversizedHeads.withLock { $0.count() }
    guard let report else { return }
    advise(
      .malformedData,
      "\(report) request(s) so far had a request line and headers beyond "
        + "\(SensorLoggerRequestHeadLimit.maximumBytes / 1024) KiB or "
        + "\(SensorLoggerRequestHeadLimit.maximumFieldCount) fields; they were answered 431 and "
        + "their connections closed")
  }

  /// Reports (advisory) the connections closed for their peer's excess (`PeerConnectionLimit`),
  /// which calls this the first time and at every power of ten of their total.
  private func reportPeerExcess(_ report: Int) {
    advise(
      .other,
      "\(report) connection(s) so far were closed on arrival because their address already held "
        + "\(configuration.maximumConnectionsPerPeer) connections")
  }

  /// Reports (advisory) the connections closed to make room for newer ones of their peer
  /// (`PeerConnectionLimit`), the first time and at every power of ten of their total: many of
  /// them mean a flood of connections.
  private func reportPeerEvictions(_ report: Int) {
    advise(
      .other,
      "\(report) connection(s) so far that had no push accepted were closed to make room for "
        + "newer ones from their address (a flood of connections?)")
  }

  /// Tells subscribers of a refusal or a limit reached: an advisory failure (the stream goes on),
  /// its message prefixed with the receiver's name. The callers count and call this the first
  /// time and at every power of ten.
  private func advise(_ kind: SourceFailure.Kind, _ message: String) {
    hub.deliver(
      .failure(SourceFailure(kind, "Sensor Logger receiver: " + message, isFatal: false)))
  }

  private func answer(to request: Request, context: SensorLoggerRequestContext) async -> Response {
    if let token = configuration.token, !Self.path(request.uri.path, startsWithToken: token) {
      return Self.response(.notFound, "unknown path\n")
    }
    // Browsers send Origin with every cross-site POST; Sensor Logger does not. Refusing them keeps
    // web pages the user visits from posting readings to this machine.
    if request.headers[.origin] != nil {
      return Self.response(.forbidden, "cross-origin requests are refused\n")
    }
    switch request.method {
    case .post, .put:
      if let type = request.headers[.contentType], !Self.isJSON(type) {
        return Self.response(.unsupportedMediaType, "POST application/json here\n")
      }
      let body: ByteBuffer
      do {
        body = try await Self.collectBody(
          of: request, upTo: configuration.maximumBodySize,
          timeout: configuration.requestBodyTimeout)
      } catch is BodyTimeout {
        context.closeAfterAnswer()
        return Self.response(.requestTimeout, "the request body took too long\n", close: true)
      } catch {
        guard let refusal = error as? any HTTPResponseError, refusal.status == .contentTooLarge
        else {
          context.closeAfterAnswer()
          return Self.response(.badRequest, "the request body could not be read\n", close: true)
        }
        let reason =
          "a request body exceeded \(configuration.maximumBodySize) bytes and was refused (turn "
          + "off camera and audio streams in the app)"
        // The sender gets every refusal in its answer; subscribers the first one, then one at
        // each power of ten with the count, like the other refusals.
        if let report = oversizedBodies.withLock({ $0.count() }) {
          let counted = report == 1 ? "" : " (\(report) so far)"
          advise(.malformedData, reason + counted)
        }
        context.closeAfterAnswer()
        return Self.response(
          .contentTooLarge, "Sensor Logger receiver: " + reason + "\n", close: true)
      }
      // Decoded before taking the stream's lock: a large body must not hold up other requests.
      let decoded = SensorLoggerStream.decode(Array(body.readableBytesView))
      let now = phoneStreamUptime()
      let outcome = stream.withLock { $0.state?.receive(decoded, now: now) }
      guard let outcome else { return Self.response(.serviceUnavailable, "stopping\n") }
      hub.deliver(outcome.events)
      if let rejection = outcome.rejection {
        return Self.response(.badRequest, rejection.message + "\n")
      }
      return Self.response(.ok, "ok\n")
    case .get, .head:
      return Self.response(
        .ok,
        "OpenCoreMotion Sensor Logger receiver: set this URL as the HTTP Push URL in Sensor Logger.\n"
      )
    default:
      return Self.response(.methodNotAllowed, "POST JSON here\n")
    }
  }

  /// The request body did not arrive in time.
  private struct BodyTimeout: Error {}

  /// Reads the whole body, at most `limit` bytes and `timeout` seconds (a peer that trickles a
  /// body must not hold a connection for ever).
  private static func collectBody(
    of request: Request, upTo limit: Int, timeout: Double
  )
    async throws -> ByteBuffer
  {
    try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
      group.addTask {
        var request = request
        return try await request.collectBody(upTo: limit)
      }
      group.addTask {
        _ = await phoneStreamPause(timeout)
        return nil
      }
      defer { group.cancelAll() }
      guard let body = try await group.next() ?? nil else { throw BodyTimeout() }
      return body
    }
  }

  /// A plain-text answer; `close` ends the connection after it (when the body was not read).
  private static func response(
    _ status: HTTPResponse.Status, _ text: String, close: Bool = false
  )
    -> Response
  {
    var headers = HTTPFields()
    headers[.contentType] = "text/plain; charset=utf-8"
    if close { headers[.connection] = "close" }
    return Response(
      status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
  }

  /// Whether a `Content-Type` value is JSON (`application/json`, `…+json`, any parameters).
  static func isJSON(_ contentType: String) -> Bool {
    let type =
      contentType.split(separator: ";").first.map {
        $0.trimmingCharacters(in: .whitespaces).lowercased()
      } ?? ""
    return type == "application/json" || (type.hasPrefix("application/") && type.hasSuffix("+json"))
  }

  /// Whether `path` is `/<token>` or lies below it.
  static func path(_ path: String, startsWithToken token: String) -> Bool {
    let components = path.split(separator: "/", omittingEmptySubsequences: true)
    guard let first = components.first else { return false }
    // Compared in full every time, so the answer time does not tell how much of a guess matched.
    let a = Array(first.utf8)
    let b = Array(token.utf8)
    var difference = a.count ^ b.count
    for index in 0..<max(a.count, b.count) {
      let x = index < a.count ? a[index] : 0
      let y = index < b.count ? b[index] : 0
      difference |= Int(x ^ y)
    }
    return difference == 0
  }
}

/// The outcome of starting the server, handed from the server task to `subscribe`.
private final class StartSignal: Sendable {
  enum Outcome: Sendable {
    case listening(UInt16)
    case failed(any Error)
  }

  private let outcome = Locked<Outcome?>(nil)
  private let semaphore = DispatchSemaphore(value: 0)

  func listening(_ port: UInt16) { settle(.listening(port)) }
  func fail(_ error: any Error) { settle(.failed(error)) }

  private func settle(_ value: Outcome) {
    let first = outcome.withLock { current -> Bool in
      guard current == nil else { return false }
      current = value
      return true
    }
    if first { semaphore.signal() }
  }

  /// Waits up to `timeout` seconds for the outcome.
  func wait(timeout: Double) -> Outcome? {
    _ = semaphore.wait(timeout: .now() + timeout)
    return outcome.withLock { $0 }
  }
}
