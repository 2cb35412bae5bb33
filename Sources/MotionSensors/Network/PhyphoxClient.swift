// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A live source polling a phone running phyphox with remote access enabled.
///
/// Every ``Configuration/pollInterval`` seconds it asks `http://<host>:<port>/get` for the values
/// that are new since the last poll (phyphox's threshold form, see ``PhyphoxPoller``). Which
/// buffers to read comes from the experiment's `/config` (phyphox 1.1.6+) unless given: the
/// accelerometer ("Acceleration with g", specific force in m/s², same sign on iOS and Android),
/// gyroscope (rad/s), magnetometer (µT) and pressure (hPa → kPa) inputs.
///
/// The phone's clock is phyphox's experiment time in seconds (since the measurement first started,
/// pauses excluded), shifted forward after a clear or an experiment switch so it keeps increasing.
/// Samples are delivered, by default, on this machine's boot clock (see ``PhoneStreamClock``);
/// ``Configuration/clock`` `.phone` keeps experiment time.
///
/// Requests are made one at a time on fresh connections, as phyphox's single-threaded server needs.
/// An unreachable phone is reported once as `.disconnected` and polling continues.
public final class PhyphoxClient: SensorSource, @unchecked Sendable {
  /// Where to poll and how often.
  public struct Configuration: Sendable, Equatable {
    /// The phone's address (shown by phyphox when remote access is enabled).
    public var host: String
    /// The port; default 8080 (Android's default; iOS uses 80).
    public var port: UInt16
    /// Seconds between polls; default 0.1.
    public var pollInterval: Double
    /// Seconds to wait for each answer; default 2.
    public var requestTimeout: Double
    /// The buffers to read; default `nil`: discover them from `/config`.
    public var buffers: [PhyphoxBufferGroup]?
    /// How far (stream seconds) a sample must lag the newest before delivery; default 0.1 s.
    public var sampleHoldTime: Double
    /// The longest a sample waits (wall seconds) when nothing newer arrives; default 0.3 s.
    public var maximumSampleDelay: Double
    /// The clock of sample timestamps; default ``PhoneStreamClock/receiverBoot`` (this machine's
    /// boot clock, as ``BootClock``).
    public var clock: PhoneStreamClock

    /// Creates a configuration; every parameter but `host` has the default stated on its property.
    public init(
      host: String, port: UInt16 = 8080, pollInterval: Double = 0.1, requestTimeout: Double = 2,
      buffers: [PhyphoxBufferGroup]? = nil, sampleHoldTime: Double = 0.1,
      maximumSampleDelay: Double = 0.3, clock: PhoneStreamClock = .receiverBoot
    ) {
      self.host = host
      self.port = port
      self.pollInterval = pollInterval
      self.requestTimeout = requestTimeout
      self.buffers = buffers
      self.sampleHoldTime = sampleHoldTime
      self.maximumSampleDelay = maximumSampleDelay
      self.clock = clock
    }
  }

  /// The configuration the client was created with.
  public let configuration: Configuration
  public var name: String { "phyphox:http://\(configuration.host):\(configuration.port)" }
  public var availableSensors: SensorSet {
    guard let buffers = configuration.buffers else {
      return [.accelerometer, .gyroscope, .magnetometer, .barometer]
    }
    return buffers.reduce(into: []) { set, group in
      switch group.sensor {
      case .accelerometer: set.insert(.accelerometer)
      case .gyroscope: set.insert(.gyroscope)
      case .magnetometer: set.insert(.magnetometer)
      case .pressure: set.insert(.barometer)
      }
    }
  }
  /// The phone decides the rate; phyphox samples as fast as the sensor allows.
  public var supportedSampleRates: ClosedRange<Double> { 1...500 }

  private var hub: LiveSourceHub!
  private let pollCount = Locked(0)

  /// Creates a client; nothing is polled until the first subscription.
  public init(configuration: Configuration) {
    self.configuration = configuration
    hub = LiveSourceHub(name: "phyphox", failureLabel: "phyphox client") { [weak self] in
      try self?.startWorker()
    }
  }

  /// How many `/get` polls have been answered (for diagnostics and tests).
  public var completedPolls: Int { pollCount.withLock { $0 } }

  public func subscribe(
    requestedSampleRate: Double, _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    hub.subscribe(handler)
  }

  private func startWorker() throws -> NetworkThread {
    try NetworkThread(name: "OpenCoreMotion.phyphox") { [self] thread in run(thread) }
  }

  // MARK: - Polling loop (on the network thread)

  private func get(_ path: String) throws -> HTTPMessage {
    try TCPSocket.httpGet(
      host: configuration.host, port: configuration.port, path: path,
      timeout: configuration.requestTimeout)
  }

  private func run(_ thread: NetworkThread) {
    let address = "http://\(configuration.host):\(configuration.port)"
    var poller: PhyphoxPoller?
    var timeOffset = 0.0
    var lastTimestamp = -Double.infinity
    var reorder = SampleReorderBuffer(
      holdTime: configuration.sampleHoldTime, maximumDelay: configuration.maximumSampleDelay,
      clock: configuration.clock)
    var lastFailure: String?  // Repeats of the same failure are reported once.
    var reportedNotes: Set<String> = []

    func report(_ failure: SourceFailure) {
      guard !reportedNotes.contains(failure.message) else { return }
      reportedNotes.insert(failure.message)
      hub.deliver(.failure(failure))
    }

    while !thread.isStopRequested {
      var events: [SourceEvent] = []
      do {
        if poller == nil {
          let groups = try discoverGroups(report: report)
          guard !groups.isEmpty else {
            report(
              SourceFailure(
                .other,
                "phyphox at \(address): the running experiment has no accelerometer, gyroscope, "
                  + "magnetometer or pressure input; start e.g. \"Acceleration with g\""))
            _ = thread.pause(max(configuration.pollInterval, 1))
            continue
          }
          poller = PhyphoxPoller(
            groups: groups, timeOffset: timeOffset, lastTimestamp: lastTimestamp)
        }
        let response = try get(poller!.requestPath())
        guard response.status == 200 else {
          throw SourceFailure(.other, "phyphox /get answered HTTP \(response.status)")
        }
        let document: PhoneJSON
        do {
          document = try PhoneJSON.parse(response.body)
        } catch {
          throw SourceFailure(.malformedData, "phyphox /get answer is not JSON")
        }
        let outcome = try poller!.consume(document)
        pollCount.withLock { $0 += 1 }
        lastFailure = nil
        timeOffset = poller!.timeOffset
        lastTimestamp = poller!.lastTimestamp
        if outcome.sessionChanged { poller = nil }  // The user switched experiments: rediscover.
        reorder.insert(outcome.samples, now: phoneStreamUptime())
      } catch {
        let failure =
          (error as? SourceFailure).map {
            SourceFailure($0.kind, "phyphox at \(address): \($0.message)")
          }
          ?? SourceFailure(.disconnected, "phyphox at \(address): \(error)")
        if failure.message != lastFailure { events.append(.failure(failure)) }
        lastFailure = failure.message
      }
      events += reorder.releaseEvents(now: phoneStreamUptime(), source: "phyphox client")
      hub.deliver(events)
      _ = thread.pause(configuration.pollInterval)
    }
  }

  /// The configured groups, or those `/config` describes, or the standard names for old phyphox.
  private func discoverGroups(report: (SourceFailure) -> Void) throws -> [PhyphoxBufferGroup] {
    if let buffers = configuration.buffers { return buffers }
    let response = try get("/config")
    guard response.status == 200, let config = try? PhoneJSON.parse(response.body),
      config["inputs"] != nil
    else {
      return PhyphoxBufferGroup.standard  // phyphox before 1.1.6 has no /config.
    }
    let (groups, notes) = PhyphoxBufferGroup.discover(in: config)
    for note in notes { report(SourceFailure(.other, "phyphox: \(note)")) }
    return groups
  }
}
