// SPDX-License-Identifier: Apache-2.0

import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import MotionSensors
import MotionServerSupport
import NIOCore
import OpenCoreMotion
import SourceComposition

/// Serves the live motion dashboard: the page on `/`, live frames on the WebSocket `/ws`, the
/// daemon's history on `/api/history` and one day of it on `/api/history/day`
/// (docs/Dashboard.md describes them).
public struct DashboardServer: Sendable {
  /// The cookie that carries the access token after the page was opened with `?token=`.
  public static let tokenCookie = "motiondashboard_token"
  /// The kernel send buffer of each WebSocket connection, bytes (Linux doubles it). Without a
  /// bound the kernel grows it to `tcp_wmem`'s maximum (4 MiB by default) for a tab that stopped
  /// reading; with it, the connection's writer waits after a few frames and the bounded queue
  /// (``DashboardClientQueue``) drops and counts the rest. 128 KiB holds several frames at 100 Hz,
  /// enough for a network's round trip.
  static let socketSendBufferBytes: Int32 = 128 * 1024

  public let configuration: DashboardConfiguration
  private let logger: Logger

  public init(
    configuration: DashboardConfiguration, logger: Logger = Logger(label: "MotionDashboard")
  ) {
    self.configuration = configuration
    self.logger = logger
  }

  /// Runs until the task is cancelled or the process gets SIGINT/SIGTERM.
  ///
  /// - Parameters:
  ///   - makeSource: opens a source (the default is `SourceFactory.makeSource(_:)`).
  ///   - onRunning: called once with the page's URL (including the token, if any) when listening.
  /// - Throws: `SourceSpecificationError` when the source cannot be opened, ``DashboardError``.
  public func run(
    makeSource: @escaping @Sendable (SourceSpecification) throws -> any SensorSource = SourceFactory
      .makeSource,
    onRunning: @escaping @Sendable (URL) -> Void = { _ in }
  ) async throws {
    let configuration = self.configuration
    if !DashboardConfiguration.isLoopback(configuration.host), configuration.token == nil {
      throw DashboardError.tokenRequired(host: configuration.host)
    }
    let files = try DashboardStaticFiles()
    let source = try makeSource(configuration.source)
    let recorder = DashboardRecorder(directory: configuration.recordingDirectory)
    var frame = configuration.referenceFrame
    if !CMMotionManager(source: source).supportedAttitudeReferenceFrames.contains(frame) {
      logger.warning(
        "\(configuration.source) does not support the requested frame; using xArbitraryZVertical")
      frame = .xArbitraryZVertical
    }
    let feed = DashboardFeed(
      specification: configuration.source, source: source, frame: frame,
      rate: configuration.updateRate,
      recorder: recorder)
    let hub = DashboardHub(
      feed: feed, recorder: recorder, hasHistory: configuration.history != nil,
      stopsSourceWhenIdle: configuration.stopsSourceWhenIdle, makeSource: makeSource)
    // The feed starts with the first page (DashboardHub.connect()).

    // One peer address holds at most `maximumConnectionsPerPeer` connections
    // (PeerConnectionLimit); their refusals are logged as warnings, the first and each power of
    // ten. With a token, a connection that has not yet sent it gives way to a newer one from its
    // address (every connection from this machine is one peer, whatever its address): a request
    // head with the token proves its connection as soon as it is decoded (DashboardEarlyProof),
    // and the access middleware answers it.
    let perPeer = configuration.connectionLimits.maximumConnectionsPerPeer
    let peerLimit = PeerConnectionLimit(
      limit: perPeer, evictsUnprovenConnections: configuration.token != nil,
      onEvictionDue: { [logger] total in
        logger.warning(
          "\(total) dashboard connection(s) so far that had not sent the token were closed to make room for newer ones from their address (a flood of connections?)"
        )
      }
    ) { [logger] total in
      logger.warning(
        "\(total) dashboard connection(s) so far were closed on arrival because their address already held \(perPeer) connections"
      )
    }
    let router = Router(context: DashboardRequestContext.self)
    router.middlewares.add(DashboardRequestGuard(hasToken: configuration.token != nil))
    router.middlewares.add(
      DashboardAccessMiddleware(token: configuration.token, peerLimit: peerLimit))
    Self.addPageRoutes(to: router, files: files, history: configuration.history)
    Self.addWebSocketRoute(to: router, hub: hub, hasToken: configuration.token != nil)

    let token = configuration.token
    let host = configuration.host
    let limits = configuration.connectionLimits
    let idle = TimeAmount.nanoseconds(Int64(max(0.05, min(limits.idleTimeout, 86_400)) * 1e9))
    let channelConfiguration = HTTP1WebSocketUpgradeChannel.Configuration(
      http1: .init(idleTimeout: idle), ws: .init(maxFrameSize: DashboardControlMessage.maximumSize))
    let webSocketResponder = router.buildResponder()
    // Stops the server when this task is cancelled: closes the listener and asks each connection
    // to quiesce, so that connections which have sent nothing are closed (see
    // DashboardConnectionGuard) rather than holding the stop. Hummingbird's graceful shutdown,
    // which the cancellation also starts, does the same from a task of its own, which cannot run
    // while every thread of Swift concurrency's pool is busy (motiond shares the pool); the drain
    // does it on the cancelling thread, so the listener and the idle connections close even then
    // (DashboardStopTests fails without it). The source's subscriptions end then too
    // (DashboardHub.stopSource(), on the hub's queue). The run itself still returns only once a
    // pool thread is free.
    let drain = ServerDrain()
    // Every connection gets the guard first (see DashboardConnectionGuard), at most
    // `maximumConnections` are served at once, so idle or unread connections cannot exhaust the
    // process's descriptors, and one peer address holds at most `maximumConnectionsPerPeer` of
    // them (see `peerLimit` above).
    let server = HTTPServerBuilder { responder in
      DashboardGuardedChannel(
        inner: HTTP1WebSocketUpgradeChannel(
          responder: responder, webSocketResponder: webSocketResponder,
          configuration: channelConfiguration),
        limits: limits, peerLimit: peerLimit, token: token, drain: drain)
    }
    // Hummingbird logs each connection that ends before its request (closed by the guard, or by
    // the peer) as an error; those are the peers' doing, and logging each would let any peer
    // flood the log. Failures to listen are thrown to the caller.
    var serverLogger = logger
    serverLogger.logLevel = max(logger.logLevel, .critical)
    let app = Application(
      router: router,
      server: server,
      configuration: .init(
        address: .hostname(host, port: configuration.port), serverName: nil,
        availableConnectionsDelegate: MaximumAvailableConnections(
          max(1, limits.maximumConnections), logger: serverLogger)),
      onServerRunning: { channel in
        drain.listening(on: channel)
        let port = channel.localAddress?.port ?? configuration.port
        let shownHost = host.contains(":") ? "[\(host)]" : host
        var text = "http://\(shownHost):\(port)/"
        if let token { text += "?token=\(token)" }
        if let url = URL(string: text) { onRunning(url) }
      },
      logger: serverLogger)

    // The frame timer runs on one of the server's event loops (the first page's, once there is
    // one), and the frames it offers resume the connections' writers on their loops
    // (EventLoopTaskExecutor).
    await hub.startFrameTimer(on: app.eventLoopGroup.next())
    do {
      try await withTaskCancellationHandler {
        try await app.runService()
      } onCancel: {
        drain.drain()
        hub.stopSource()
      }
    } catch {
      await hub.shutDown()
      throw error
    }
    await hub.shutDown()
  }

  private static func addPageRoutes(
    to router: Router<DashboardRequestContext>, files: DashboardStaticFiles,
    history: (any DashboardHistoryProvider)?
  ) {
    for (path, file) in files.files {
      router.get(RouterPath(stringLiteral: path)) { _, _ in
        Response(
          status: .ok,
          headers: [
            .contentType: file.contentType, .cacheControl: "no-cache",
            HeaderName("Content-Security-Policy")!:
              "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self'",
            HeaderName("X-Content-Type-Options")!: "nosniff",
          ],
          body: ResponseBody(byteBuffer: ByteBuffer(bytes: file.contents)))
      }
    }
    router.get("/api/history") { _, _ -> Response in
      guard let history else {
        return Response(
          status: .notFound, body: ResponseBody(byteBuffer: ByteBuffer(string: "no history here\n"))
        )
      }
      return try Self.json(try await Self.abandoningOnCancel { try await history.history() })
    }
    // One local day's hourly steps and activity timeline (the panel's drill-down): 400 for a
    // missing, repeated or malformed date (DashboardCalendarDate), 404 without a provider or for
    // a day it does not answer for (outside the last 7, or history denied).
    router.get("/api/history/day") { request, _ -> Response in
      guard let history else { return Self.plainText(.notFound, "no history here\n") }
      let dates = request.uri.queryParameters[values: "date"]
      guard dates.count == 1, let date = DashboardCalendarDate.validated(dates[0]) else {
        return Self.plainText(.badRequest, "date must be one real date as YYYY-MM-DD\n")
      }
      guard let detail = try await Self.abandoningOnCancel({ try await history.dayDetail(date) })
      else {
        return Self.plainText(.notFound, "no history for that day\n")
      }
      return try Self.json(detail)
    }
  }

  /// `body`'s result, or `CancellationError` as soon as the calling task is cancelled, whether or
  /// not `body` heeds it. A request is cancelled when the server stops, but a provider's read
  /// that ignores cancellation (the daemon's store reads wait on a queue of their own) held its
  /// request, and so the server's run, for as long as the read took: without end, for one that
  /// never returns. The abandoned call runs on to its end; its result is dropped.
  static func abandoningOnCancel<T: Sendable>(
    _ body: @escaping @Sendable () async throws -> T
  ) async throws -> T {
    let work = Task { try await body() }
    // Resumed once: by the work's end or by the cancellation, whichever takes it first.
    let waiter = Locked<CheckedContinuation<T, any Error>?>(nil)
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        waiter.withLock { $0 = continuation }
        Task {
          let result = await work.result
          waiter.withLock { $0.take() }?.resume(with: result)
        }
        // Cancelled before the continuation was stored: the handler found nothing to resume.
        if Task.isCancelled {
          waiter.withLock { $0.take() }?.resume(throwing: CancellationError())
        }
      }
    } onCancel: {
      work.cancel()
      waiter.withLock { $0.take() }?.resume(throwing: CancellationError())
    }
  }

  /// `value` as a JSON answer (keys sorted, never cached): the history routes' one shape.
  private static func json(_ value: some Encodable) throws -> Response {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return Response(
      status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
      body: ResponseBody(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
  }

  /// A short plain-text answer (a refusal's reason for a person reading it).
  private static func plainText(_ status: HTTPResponse.Status, _ text: String) -> Response {
    Response(
      status: status, headers: [.contentType: "text/plain; charset=utf-8"],
      body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
  }

  private static func addWebSocketRoute(
    to router: Router<DashboardRequestContext>, hub: DashboardHub, hasToken: Bool
  ) {
    router.ws("/ws") { request, context in
      let isFoxglove = Self.asksForFoxglove(request.headers)
      // `?format=binary` (the page) or `json` (the default); anything else is refused rather
      // than answered in a format the client did not ask for.
      guard DashboardFrameFormat(query: Self.queryItems(of: request)) != nil else {
        return .dontUpgrade
      }
      // A page on another site must not read the sensors through the visitor's browser (see
      // DashboardOriginPolicy; DashboardRequestGuard checks the same before any route, this is
      // the upgrade's own check so that it never depends on middleware order).
      let host = DashboardRequestGuard.host(of: request)
      if !hasToken && !DashboardOriginPolicy.isLoopbackAuthority(host) { return .dontUpgrade }
      if let origin = request.headers[HeaderName("Origin")!],
        !DashboardOriginPolicy.allows(
          origin: origin, host: host, isFoxglove: isFoxglove, hasToken: hasToken)
      {
        return .dontUpgrade
      }
      try? await context.channel.setOption(
        ChannelOptions.socketOption(.so_sndbuf),
        value: SocketOptionValue(Self.socketSendBufferBytes)
      ).get()
      guard let subprotocol = Self.foxgloveSubprotocol(request.headers) else {
        return .upgrade([:])
      }
      return .upgrade([HeaderName("Sec-WebSocket-Protocol")!: subprotocol])
    } onUpgrade: { inbound, outbound, context in
      let eventLoop = context.requestContext.channel.eventLoop
      if Self.asksForFoxglove(context.request.headers) {
        await Self.serveFoxglove(inbound, outbound, eventLoop: eventLoop, hub: hub)
        return
      }
      let format = DashboardFrameFormat(query: Self.queryItems(of: context.request)) ?? .json
      let (id, queue) = await hub.connect(on: eventLoop, format: format)
      // The writer runs on the connection's own event loop: a frame then goes from the queue
      // into the channel without waking a pool thread and then the loop (EventLoopTaskExecutor).
      let writerExecutor = EventLoopTaskExecutor(eventLoop)
      await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask(executorPreference: writerExecutor) {
          for await frame in queue.frames {
            switch frame {
            case .text(let text): try await outbound.write(.text(text))
            case .binary(let bytes): try await outbound.write(.binary(bytes))
            }
            queue.noteSent()
          }
        }
        group.addTask {
          for try await message in inbound.messages(maxSize: DashboardControlMessage.maximumSize) {
            guard case .text(let text) = message else { continue }
            if let notice = await hub.handle(text) { queue.offer(notice) }
          }
        }
        // When either side ends (the page closed, or the write failed), end the other.
        _ = try? await group.next()
        await hub.disconnect(id)
        group.cancelAll()
      }
    }
  }

  /// The request's query parameters, in order (decoded).
  static func queryItems(of request: Request) -> [(name: String, value: String)] {
    request.uri.queryParameters.map { (String($0.key), String($0.value)) }
  }

  /// Whether the upgrade request offers Foxglove's WebSocket protocol (under either name).
  static func asksForFoxglove(_ headers: HTTPFields) -> Bool {
    foxgloveSubprotocol(headers) != nil
  }

  /// The name of Foxglove's protocol to select for this upgrade request, if it offers one.
  static func foxgloveSubprotocol(_ headers: HTTPFields) -> String? {
    FoxgloveConnection.selectSubprotocol(
      offered: headers[values: HeaderName("Sec-WebSocket-Protocol")!])
  }

  /// A Foxglove client: server info and channels first, then Message Data frames of the channels
  /// it subscribes to, until either side ends.
  private static func serveFoxglove(
    _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter,
    eventLoop: any EventLoop, hub: DashboardHub
  ) async {
    let (id, connection) = await hub.connectFoxglove()
    await withThrowingTaskGroup(of: Void.self) { group in
      // As a page's writer, on the connection's event loop.
      group.addTask(executorPreference: EventLoopTaskExecutor(eventLoop)) {
        for await message in connection.messages {
          switch message {
          case .text(let text): try await outbound.write(.text(text))
          case .binary(let bytes): try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
          }
        }
      }
      group.addTask {
        for try await message in inbound.messages(maxSize: DashboardControlMessage.maximumSize) {
          guard case .text(let text) = message else { continue }
          connection.handle(text)
        }
      }
      _ = try? await group.next()
      await hub.disconnect(id)
      group.cancelAll()
    }
  }
}

/// An HTTP header name (HTTPTypes' `HTTPField.Name`, reached through Hummingbird's re-exported
/// `HTTPFields` so this module needs no direct dependency on swift-http-types).
typealias HeaderName = HTTPFields.Element.Name
