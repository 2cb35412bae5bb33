// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A live source reading the SensorServer Android app's WebSocket stream (the phone is the server).
///
/// Connects to `ws://<host>:<port>/sensors/connect?types=[…]` and turns each JSON `SensorEvent`
/// into a sample: Android's accelerometer already reads specific force in m/s² (+9.81 up at rest),
/// gyroscope rad/s, magnetometer µT, pressure hPa → kPa. Samples from the different sensors are put
/// in timestamp order by a short jitter buffer.
///
/// The phone's clock is its boot clock (`SensorEvent.timestamp`, ns since the phone booted).
/// Samples are ordered on it and, by default, delivered on this machine's boot clock (see
/// ``PhoneStreamClock``); ``Configuration/clock`` `.phone` keeps the phone's seconds since boot
/// (shifted forward if a reconnection finds that the phone rebooted).
///
/// The connection opens with the first subscriber and closes when the last one cancels. If it
/// drops (or cannot be made) subscribers get a `.disconnected` failure and the client retries every
/// ``Configuration/reconnectDelay`` seconds.
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
    /// How far (stream seconds) a sample must lag the newest before delivery; default 0.05 s.
    public var sampleHoldTime: Double
    /// The longest a sample waits (wall seconds) when nothing newer arrives; default 0.2 s.
    public var maximumSampleDelay: Double
    /// The clock of sample timestamps; default ``PhoneStreamClock/receiverBoot`` (this machine's
    /// boot clock, as ``BootClock``).
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
      maximumSampleDelay: Double = 0.2, clock: PhoneStreamClock = .receiverBoot
    ) {
      self.host = host
      self.port = port
      self.types = types.map(SensorServerReading.fullType)
      self.connectTimeout = connectTimeout
      self.reconnectDelay = reconnectDelay
      self.sampleHoldTime = sampleHoldTime
      self.maximumSampleDelay = maximumSampleDelay
      self.clock = clock
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

  /// Creates a client; nothing connects until the first subscription.
  public init(configuration: Configuration) {
    self.configuration = configuration
    availableSensors = configuration.types.reduce(into: []) {
      $0.formUnion(SensorServerReading.sensor(for: $1))
    }
    hub = LiveSourceHub(name: "SensorServer", failureLabel: "SensorServer client") { [weak self] in
      try self?.startWorker()
    }
  }

  /// Whether the WebSocket is currently open.
  public var isConnected: Bool { connected.withLock { $0 } }

  public func subscribe(
    requestedSampleRate: Double, _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    hub.subscribe(handler)
  }

  private func startWorker() throws -> NetworkThread {
    try NetworkThread(name: "OpenCoreMotion.SensorServer") { [self] thread in run(thread) }
  }

  // MARK: - Connection loop (on the network thread)

  private func run(_ thread: NetworkThread) {
    let address = "ws://\(configuration.host):\(configuration.port)"
    var clockOffset = 0.0
    var reorder = SampleReorderBuffer(
      holdTime: configuration.sampleHoldTime, maximumDelay: configuration.maximumSampleDelay,
      clock: configuration.clock)
    var reportedOutage = false
    while !thread.isStopRequested {
      let connection: WebSocketConnection
      do {
        connection = try WebSocketConnection.connect(
          host: configuration.host, port: configuration.port, path: configuration.path,
          timeout: configuration.connectTimeout)
      } catch {
        if !reportedOutage {
          reportedOutage = true
          let reason = (error as? SourceFailure)?.message ?? "\(error)"
          hub.deliver(
            .failure(SourceFailure(.disconnected, "SensorServer at \(address): \(reason)")))
        }
        _ = thread.pause(configuration.reconnectDelay)
        continue
      }
      reportedOutage = false
      connected.withLock { $0 = true }
      var clock = ClockContinuity(offset: clockOffset, needsCheck: true)
      let ending = serve(connection, thread: thread, reorder: &reorder, clock: &clock)
      clockOffset = clock.offset
      connected.withLock { $0 = false }
      connection.close()
      hub.deliver(reorder.release(now: phoneStreamUptime(), flushAll: true).map(SourceEvent.sample))
      guard let ending else { return }  // stopped
      reportedOutage = true
      hub.deliver(.failure(SourceFailure(.disconnected, "SensorServer at \(address): \(ending)")))
      _ = thread.pause(configuration.reconnectDelay)
    }
  }

  /// Reads until the connection ends (returns why) or a stop is requested (returns `nil`).
  private func serve(
    _ connection: WebSocketConnection, thread: NetworkThread, reorder: inout SampleReorderBuffer,
    clock: inout ClockContinuity
  ) -> String? {
    var receiving = false  // The first pass drains bytes that arrived with the handshake.
    while !thread.isStopRequested {
      var events: [SourceEvent] = []
      var ending: String?
      do {
        for message in try connection.readMessages(receiving: receiving) {
          switch message {
          case .text(let text):
            do {
              let reading = try SensorServerReading(
                text: text,
                defaultType: configuration.types.count == 1 ? configuration.types[0] : nil)
              if var sample = try reading.sample() {
                sample.timestamp = clock.adjust(
                  sample.timestamp, after: reorder.lastReleasedTimestamp)
                reorder.insert([sample], now: phoneStreamUptime())
              }
            } catch let failure as SourceFailure {
              events.append(.failure(failure))
            }
          case .binary:
            events.append(
              .failure(
                SourceFailure(
                  .malformedData, "SensorServer sent a binary message; expected JSON text")))
          case .close(let code, let reason):
            ending = Self.describeClose(code: code, reason: reason)
          }
        }
      } catch let failure as SourceFailure {
        events.append(.failure(failure))
        ending = "connection dropped after a protocol error"
      } catch {
        ending = "connection lost (\(error))"
      }
      events += reorder.releaseEvents(now: phoneStreamUptime(), source: "SensorServer client")
      hub.deliver(events)
      if let ending { return ending }

      let ready = pollForInput(
        [thread.wake.readDescriptor, connection.socket.descriptor], timeout: 0.02)
      if ready[0] != 0 { thread.wake.drain() }
      receiving = ready[1] != 0
    }
    return nil
  }

  /// Keeps timestamps increasing across reconnections: if the first sample of a new connection is
  /// older than what was already delivered (the phone rebooted, so its boot clock restarted), all
  /// later samples are shifted forward by the difference.
  struct ClockContinuity {
    var offset: Double
    var needsCheck: Bool

    mutating func adjust(_ timestamp: Double, after lastDelivered: Double) -> Double {
      if needsCheck {
        needsCheck = false
        if lastDelivered.isFinite && timestamp + offset < lastDelivered {
          offset = lastDelivered - timestamp
        }
      }
      return timestamp + offset
    }
  }

  /// A readable explanation of a close frame, using SensorServer's documented codes.
  static func describeClose(code: UInt16?, reason: String) -> String {
    let meaning: String
    switch code {
    case nil: meaning = "connection closed"
    case 1000?: meaning = "closed normally"
    case 1001?: meaning = "server going away"
    case 4001?: meaning = "sensor not found on the phone"
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
    let detail = reason.isEmpty ? "" : " (\(reason))"
    return "\(meaning)\(code.map { " [\($0)]" } ?? "")\(detail)"
  }
}
