// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A live source fed by the Sensor Logger app's HTTP push: we run a small HTTP server and the
/// phone POSTs batches of JSON readings to it.
///
/// In the app, enable HTTP Push in the data-streaming settings with the URL
/// `http://<this machine>:<port>/` (any path), then start a recording. Every message is answered 200 at once. Messages are put back in
/// `messageId` order and samples in timestamp order (see ``Configuration``) before delivery;
/// units and signs are converted to ``MotionSample``'s (specific force in m/s², rad/s, µT, kPa).
///
/// The phone's clock is its UTC epoch time (Sensor Logger's `time`, epoch nanoseconds, ÷ 10⁹).
/// Samples are ordered on it and, by default, delivered on this machine's boot clock (see
/// ``PhoneStreamClock``); ``Configuration/clock`` `.phone` keeps the epoch seconds.
///
/// The listening socket is opened when the first subscriber arrives and closed (port free again)
/// when the last one cancels. A port that cannot be opened is reported as a `.busy` failure.
public final class SensorLoggerReceiver: SensorSource, @unchecked Sendable {
  /// Which sign and unit convention the phone's readings follow.
  public enum Platform: String, Sendable, Equatable, CaseIterable {
    /// Detect from the stream (an `accuracy` field, the uncalibrated accelerometer's magnitude, or
    /// gravity against the orientation); accelerometer samples wait until it is known.
    case automatic = "auto"
    /// iOS without "Standardise Units & Frames": Core Motion's sign, uncalibrated accelerometer in g.
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
    /// The address to bind; default `0.0.0.0` (every IPv4 interface, so the phone can reach us).
    public var bindAddress: String
    /// The TCP port; default 8000. Port 0 picks a free one (see ``SensorLoggerReceiver/listeningPort``).
    public var port: UInt16
    /// The phone's convention; default ``Platform/automatic``.
    public var platform: Platform
    /// How long (wall seconds) an early message waits for the messages before it; default 0.5 s.
    public var messageReorderWindow: Double
    /// How far (stream seconds) a sample must lag the newest before delivery; default 0.1 s.
    public var sampleHoldTime: Double
    /// The longest a sample waits (wall seconds) when nothing newer arrives; default 0.3 s.
    public var maximumSampleDelay: Double
    /// The largest accepted request body in bytes; default 32 MiB (camera frames are large).
    public var maximumBodySize: Int
    /// The clock of sample timestamps; default ``PhoneStreamClock/receiverBoot`` (this machine's
    /// boot clock, as ``BootClock``).
    public var clock: PhoneStreamClock

    /// Creates a configuration; every parameter has the default stated on its property.
    public init(
      bindAddress: String = "0.0.0.0", port: UInt16 = 8000, platform: Platform = .automatic,
      messageReorderWindow: Double = 0.5, sampleHoldTime: Double = 0.1,
      maximumSampleDelay: Double = 0.3,
      maximumBodySize: Int = 32 << 20, clock: PhoneStreamClock = .receiverBoot
    ) {
      self.bindAddress = bindAddress
      self.port = port
      self.platform = platform
      self.messageReorderWindow = messageReorderWindow
      self.sampleHoldTime = sampleHoldTime
      self.maximumSampleDelay = maximumSampleDelay
      self.maximumBodySize = maximumBodySize
      self.clock = clock
    }
  }

  /// The configuration the receiver was created with.
  public let configuration: Configuration
  public var name: String { "sensorlogger:\(configuration.bindAddress):\(configuration.port)" }
  public var availableSensors: SensorSet {
    [.accelerometer, .gyroscope, .magnetometer, .barometer]
  }
  /// The phone decides the rate (Sensor Logger offers up to 100 Hz and more on some phones).
  public var supportedSampleRates: ClosedRange<Double> { 1...200 }

  private var hub: LiveSourceHub!
  private let boundPort = Locked<UInt16?>(nil)

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

  /// Opens the listening socket (a port in use becomes a `.busy` failure, see ``LiveSourceHub``)
  /// and starts serving it.
  private func startWorker() throws -> NetworkThread {
    let listener = try TCPSocket.listen(host: configuration.bindAddress, port: configuration.port)
    boundPort.withLock { $0 = listener.localPort }
    return try NetworkThread(name: "OpenCoreMotion.SensorLogger") { [self] thread in
      serve(listener: listener, thread: thread)
    }
  }

  // MARK: - Server loop (on the network thread)

  private final class Connection {
    let socket: TCPSocket
    var buffer: [UInt8] = []
    var sentContinue = false
    init(socket: TCPSocket) { self.socket = socket }
  }

  /// The most connections served at once; more are refused (closed at once).
  private static let maximumConnections = 64

  private func serve(listener: TCPSocket, thread: NetworkThread) {
    var connections: [Connection] = []
    var sequencer = SensorLoggerMessageSequencer(window: configuration.messageReorderWindow)
    var converter = SensorLoggerConverter(convention: configuration.platform.convention)
    var reorder = SampleReorderBuffer(
      holdTime: configuration.sampleHoldTime, maximumDelay: configuration.maximumSampleDelay,
      clock: configuration.clock)
    defer {
      for connection in connections { connection.socket.close() }
      listener.close()
    }

    while !thread.isStopRequested {
      let descriptors =
        [thread.wake.readDescriptor, listener.descriptor] + connections.map(\.socket.descriptor)
      let ready = pollForInput(descriptors, timeout: 0.02)
      if ready[0] != 0 { thread.wake.drain() }
      if thread.isStopRequested { break }

      var accepted: Connection?
      if ready[1] != 0, let socket = try? listener.accept() {
        if connections.count < Self.maximumConnections {
          accepted = Connection(socket: socket)
        } else {
          socket.close()
        }
      }

      var events: [SourceEvent] = []
      var batches: [SensorLoggerBatch] = []
      var open: [Connection] = []
      for (index, connection) in connections.enumerated() {
        var keep = true
        if ready[index + 2] != 0 {
          if let bytes = try? connection.socket.receive(), !bytes.isEmpty {
            connection.buffer += bytes
            keep = handleRequests(on: connection, batches: &batches, events: &events)
          } else {
            keep = false
          }
        }
        if keep { open.append(connection) } else { connection.socket.close() }
      }
      connections = open
      if let accepted { connections.append(accepted) }

      let now = phoneStreamUptime()
      var readyBatches: [SensorLoggerBatch] = []
      for batch in batches {
        let (inOrder, sessionChanged) = sequencer.accept(batch, now: now)
        if sessionChanged {
          // A new recording: finish the old one and forget its clock and convention.
          process(readyBatches, converter: &converter, reorder: &reorder, events: &events, now: now)
          readyBatches = []
          events += reorder.release(now: now, flushAll: true).map(SourceEvent.sample)
          reorder.reset()
          converter.reset(keepingConvention: configuration.platform.convention)
        }
        readyBatches += inOrder
      }
      readyBatches += sequencer.release(now: now)
      process(readyBatches, converter: &converter, reorder: &reorder, events: &events, now: now)
      events += reorder.releaseEvents(now: now, source: "Sensor Logger receiver")
      hub.deliver(events)
    }
  }

  private func process(
    _ batches: [SensorLoggerBatch], converter: inout SensorLoggerConverter,
    reorder: inout SampleReorderBuffer, events: inout [SourceEvent], now: Double
  ) {
    for batch in batches {
      let (samples, failures) = converter.convert(batch)
      events += failures.map(SourceEvent.failure)
      reorder.insert(samples, now: now)
    }
  }

  /// Answers every complete request in the connection's buffer; returns whether to keep it open.
  private func handleRequests(
    on connection: Connection, batches: inout [SensorLoggerBatch], events: inout [SourceEvent]
  ) -> Bool {
    while true {
      switch HTTPMessage.parse(
        connection.buffer, isResponse: false, maximumBodySize: configuration.maximumBodySize)
      {
      case .incomplete(let headersComplete, let partial):
        if headersComplete, !connection.sentContinue,
          partial?.header("Expect")?.lowercased() == "100-continue"
        {
          connection.sentContinue = true
          try? connection.socket.send("HTTP/1.1 100 Continue\r\n\r\n")
        }
        return true
      case .invalid(let reason):
        events.append(.failure(SourceFailure(.malformedData, "Sensor Logger receiver: \(reason)")))
        try? connection.socket.send(
          HTTPMessage.response(status: 400, reason: "Bad Request", body: reason + "\n", close: true)
        )
        return false
      case .complete(let request, let consumed):
        connection.buffer.removeFirst(consumed)
        connection.sentContinue = false
        let response = respond(to: request, batches: &batches, events: &events)
        do {
          try connection.socket.send(response)
        } catch {
          return false
        }
        if request.wantsClose { return false }
      }
    }
  }

  private func respond(
    to request: HTTPMessage, batches: inout [SensorLoggerBatch], events: inout [SourceEvent]
  ) -> [UInt8] {
    let close = request.wantsClose
    switch request.method {
    case "POST", "PUT":
      do {
        batches.append(try SensorLoggerBatch(body: request.body))
        return HTTPMessage.response(status: 200, reason: "OK", body: "ok\n", close: close)
      } catch let failure as SourceFailure {
        events.append(.failure(failure))
        return HTTPMessage.response(
          status: 400, reason: "Bad Request", body: failure.message + "\n", close: close)
      } catch {
        events.append(.failure(SourceFailure(.malformedData, "Sensor Logger receiver: \(error)")))
        return HTTPMessage.response(
          status: 400, reason: "Bad Request", body: "\(error)\n", close: close)
      }
    case "GET":
      return HTTPMessage.response(
        status: 200, reason: "OK",
        body:
          "OpenCoreMotion Sensor Logger receiver: set this URL as the HTTP Push URL in Sensor Logger.\n",
        close: close)
    case "OPTIONS":
      return HTTPMessage.response(status: 204, reason: "No Content", body: "", close: close)
    default:
      return HTTPMessage.response(
        status: 405, reason: "Method Not Allowed", body: "POST JSON here\n", close: close)
    }
  }
}
