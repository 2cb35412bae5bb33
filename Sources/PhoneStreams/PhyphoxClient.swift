// SPDX-License-Identifier: Apache-2.0

import AsyncHTTPClient
import Foundation
import MotionSensors
import NIOCore
import PhoneStreamDecoding

/// A live source polling a phone running phyphox with remote access enabled.
///
/// Every ``Configuration/pollInterval`` seconds it asks `http://<host>:<port>/get` for the values
/// that are new since the last poll (phyphox's threshold form, see `PhyphoxPoller`). Which
/// buffers to read comes from the experiment's `/config` (phyphox 1.1.6+) unless given: the first
/// accelerometer ("Acceleration with g", specific force in m/s², same sign on iOS and Android),
/// gyroscope (rad/s), magnetometer (µT) and pressure (hPa → kPa) input, with buffer names of at
/// most 64 bytes (`PhyphoxBufferGroup.discover(in:)`).
///
/// The phone's clock is phyphox's experiment time in seconds (since the measurement first started,
/// pauses excluded), shifted forward after a clear or an experiment switch so it keeps increasing.
/// Samples are delivered, by default, on this machine's boot clock (see `PhoneStreamClock`);
/// ``Configuration/clock`` `.phone` keeps experiment time.
///
/// Requests are made one at a time on fresh connections, as phyphox's single-threaded server needs.
/// An unreachable phone is reported once as `.disconnected` and polling continues. Requests go
/// through AsyncHTTPClient with a deadline on the whole answer (head and body), a bounded answer
/// size, and no redirects followed.
///
/// Until the experiment's `/config` is read every sensor is offered; then the sensors the
/// experiment lacks (the built-in "Acceleration with g" has no gyroscope, magnetometer or pressure
/// input; one with no input the client reads has none) leave ``availableSensors`` before one note
/// names them, so that `CMMotionManager` and `CMAltimeter` report those sensors (and device motion
/// without an accelerometer or gyroscope) as not available and end updates started before. The
/// note comes again each time the experiment read changes to one that lacks something, so a run
/// started on a full experiment ends when the user switches back. A switch is seen from phyphox's
/// session (`status.session`), which the client reads before and after `/config` as well as in
/// every poll: a switch while `/config` is read means reading it again, before any note. A
/// session that changes on every request (5 changes in a row, `sessionChangeLimit`, none of them
/// followed by a poll in the session expected) is reported once, and the experiment is then read
/// again at most once a second until it settles.
///
/// `@unchecked Sendable`: `hub` is set once in `init`; the mutable state is in `Locked` boxes.
public final class PhyphoxClient: SensorSource, @unchecked Sendable {
  /// Where to poll and how often.
  public struct Configuration: Sendable, Equatable {
    /// The phone's address (shown by phyphox when remote access is enabled).
    public var host: String
    /// The port; default 8080 (Android's default; iOS uses 80).
    public var port: UInt16
    /// Seconds between polls; default 0.1. Less than 0.01 s, or NaN, is taken as 0.01 s (the
    /// least `phyphox:` specifications accept), and more than an hour as an hour.
    public var pollInterval: Double
    /// Seconds to wait for each answer; default 2. Kept within 0.01 s…1 h; NaN is taken as
    /// 0.01 s, so that every request times out and says so.
    public var requestTimeout: Double
    /// The buffers to read; default `nil`: discover them from `/config`.
    public var buffers: [PhyphoxBufferGroup]?
    /// How far (stream seconds) a sample must lag the newest before delivery; default 0.1 s.
    public var sampleHoldTime: Double
    /// The longest a sample waits (wall seconds) when nothing newer arrives; default 0.3 s.
    public var maximumSampleDelay: Double
    /// The clock of sample timestamps; default `PhoneStreamClock.receiverBoot` (this machine's
    /// boot clock, as `BootClock`).
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
  /// Every sensor until the experiment's `/config` has been read, then those the experiment has
  /// (device motion needs the accelerometer and the gyroscope).
  public var availableSensors: SensorSet {
    guard let buffers = configuration.buffers else {
      let offered: SensorSet = [.accelerometer, .gyroscope, .magnetometer, .barometer]
      return offered.subtracting(missingSensors.withLock { $0 })
    }
    return Self.sensorSet(buffers.map(\.sensor))
  }

  /// The sensors `sensors` (phyphox's inputs) stand for: its pressure is the barometer.
  private static func sensorSet(_ sensors: [PhyphoxBufferGroup.Sensor]) -> SensorSet {
    sensors.reduce(into: []) { set, sensor in
      switch sensor {
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
  /// The sensors the experiment last discovered lacks: set before its notes are delivered, so
  /// that a subscriber told "no gyroscope input" finds the gyroscope gone from
  /// ``availableSensors``.
  private let missingSensors = Locked(SensorSet())

  /// Creates a client; nothing is polled until the first subscription.
  public init(configuration: Configuration) {
    self.configuration = configuration
    hub = LiveSourceHub(name: "phyphox", failureLabel: "phyphox client") { [weak self] in
      guard let self else { return nil }
      return PhoneStreamWorker(label: "Phyphox") { [self] in await run() }
    }
  }

  /// How many `/get` polls have been answered (for diagnostics and tests).
  public var completedPolls: Int { pollCount.withLock { $0 } }

  public func subscribe(
    requestedSampleRate: Double, _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    hub.subscribe(handler)
  }

  /// The largest answer read from the phone: a `/get` for 0.1 s of four sensors is a few kB, and
  /// 2 MiB holds over 10 s of four sensors at 500 Hz. The answer is parsed into a JSON tree about
  /// 27 times its size, so this also bounds the memory a hostile "phone" can make us use (a
  /// 16 MiB answer, the bound before 2026-11-27, took about 430 MB).
  static let maximumAnswerSize = 2 << 20

  /// An answer from the phone.
  struct Answer: Sendable {
    var status: Int
    var body: [UInt8]
  }

  // MARK: - Polling loop

  /// The HTTP client for every phyphox phone: AsyncHTTPClient's defaults except that redirects
  /// are not followed. phyphox never redirects, and following one would let any device on the
  /// network make this machine send requests to hosts and ports of its choosing. A 3xx answer is
  /// reported like any other non-200 status. Process-wide and never shut down, like
  /// `HTTPClient.shared`.
  static let httpClient = HTTPClient(
    eventLoopGroup: HTTPClient.defaultEventLoopGroup,
    configuration: HTTPClient.Configuration(redirectConfiguration: .disallow))

  /// Fetches `path`; ``Configuration/requestTimeout`` bounds the whole answer, body included (a
  /// phone that sends a head and then stalls or trickles the body fails the poll).
  private func get(_ path: String) async throws -> Answer {
    let address = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
    var request = HTTPClientRequest(url: "http://\(address):\(configuration.port)\(path)")
    request.headers.add(name: "Accept", value: "application/json")
    // phyphox's server is single-threaded and mishandles keep-alive: one request per connection.
    request.headers.add(name: "Connection", value: "close")
    let seconds = max(0.01, min(configuration.requestTimeout, 3_600))
    let timeout = TimeAmount.nanoseconds(Int64(seconds * 1e9))
    return try await PhoneStreamDeadline.run(within: seconds) { [request] in
      let response: HTTPClientResponse
      do {
        response = try await Self.httpClient.execute(request, timeout: timeout)
      } catch let error as HTTPClientError where error == .deadlineExceeded {
        // The library's deadline (on the head) and ours (on the whole answer) have one length,
        // so for a phone that never answers either may pass first: one message for both, or the
        // same silence was reported twice in turn, once as the library's raw error.
        throw PhoneStreamDeadline(seconds: seconds)
      }
      let body: ByteBuffer
      do {
        body = try await response.body.collect(upTo: Self.maximumAnswerSize)
      } catch is NIOTooManyBytesError {
        // Said as what it is: NIO's error went out as a disconnection, naming neither the
        // request nor, in words, the limit.
        let endpoint = path.prefix { $0 != "?" }
        throw SourceFailure(
          .malformedData,
          "phyphox \(endpoint) answer is more than \(Self.maximumAnswerSize >> 20) MiB, the most "
            + "read")
      }
      return Answer(status: Int(response.status.code), body: Array(body.readableBytesView))
    }
  }

  private func run() async {
    let address = "http://\(configuration.host):\(configuration.port)"
    var poller: PhyphoxPoller?
    var timeOffset = 0.0
    var lastTimestamp = -Double.infinity
    var reorder = SampleReorderBuffer(
      holdTime: configuration.sampleHoldTime, maximumDelay: configuration.maximumSampleDelay,
      clock: configuration.clock)
    var lastFailure: String?  // Repeats of the same failure are reported once.
    // The notes of the last discovery: the same again (a cleared experiment, or one with no input
    // read, rediscovered every second) is not repeated; a change of experiment is told anew, as
    // runs started since the last notes learn of what is missing only from a note.
    var lastNotes: [String]?
    // The session of the next discovery when it is already known: the one whose answer revealed a
    // switch of experiments.
    var knownSession: String?
    // Session changes since a poll last found the session it expected. A user switching
    // experiments makes one or two; a phone, proxy or app that starts a session for every
    // request makes them without end, and would have /config read every poll interval with no
    // sample and no word to the user.
    var sessionChanges = 0

    // Not known again until this run reads /config: the phone may have switched experiments.
    missingSensors.withLock { $0 = [] }
    while !Task.isCancelled {
      var events: [SourceEvent] = []
      do {
        if poller == nil {
          // The session is read before and after /config: if it differs the user switched
          // experiments meanwhile, and what was read may be the old experiment's, so it is read
          // again before any note goes out or a sensor leaves `availableSensors`.
          var session = knownSession
          knownSession = nil
          if session == nil, configuration.buffers == nil { session = try await currentSession() }
          var (groups, notes) = try await discoverGroups()
          if configuration.buffers == nil {
            let sessionAfter = try await currentSession()
            guard sessionAfter == session else {
              knownSession = sessionAfter
              try countSessionChange(&sessionChanges)
              guard await phoneStreamPause(pollPause) else { return }
              continue
            }
          }
          notes = notes.map { "phyphox: \($0)" }
          if groups.isEmpty {
            notes.append(
              // "That can be read": an experiment whose inputs were all passed over for
              // overlong buffer names has inputs, and the note before this one says so.
              "phyphox at \(address): the running experiment has no accelerometer, gyroscope, "
                + "magnetometer or pressure input that can be read; start e.g. "
                + "\"Acceleration with g\"")
          }
          // Configured buffers are what `availableSensors` offers from the start.
          let missing: SensorSet =
            configuration.buffers != nil
            ? []
            : Self.sensorSet(PhyphoxBufferGroup.lacking(in: groups))
          missingSensors.withLock { $0 = missing }
          if notes != lastNotes {
            hub.deliver(notes.map { .failure(SourceFailure(.other, $0, isFatal: false)) })
          }
          lastNotes = notes
          guard !groups.isEmpty else {
            guard await phoneStreamPause(max(pollPause, 1)) else { return }
            continue
          }
          // Given the session, a switch before the first /get is seen like any later one.
          poller = PhyphoxPoller(
            groups: groups, timeOffset: timeOffset, lastTimestamp: lastTimestamp, session: session)
        }
        let response = try await get(poller!.requestPath())
        guard response.status == 200 else {
          throw SourceFailure(.other, "phyphox /get answered HTTP \(response.status)")
        }
        let document: PhoneJSON
        do {
          document = try PhoneJSON.parse(response.body)
        } catch {
          throw SourceFailure(.malformedData, "phyphox /get answer is not JSON")
        }
        let rejectedBefore = poller!.implausibleTimeCount
        let outcome = try poller!.consume(document)
        // Rows with an absurd time are dropped by the poller and reported with the buffer's own.
        reorder.countImplausible(poller!.implausibleTimeCount - rejectedBefore)
        pollCount.withLock { $0 += 1 }
        timeOffset = poller!.timeOffset
        lastTimestamp = poller!.lastTimestamp
        if outcome.sessionChanged {  // The user switched experiments: rediscover.
          knownSession = poller!.session
          poller = nil
          try countSessionChange(&sessionChanges)
        } else {
          sessionChanges = 0
        }
        // After the count, so that the session notice, thrown above while the changes go on,
        // is not cleared by the answers that carry them and so is reported once.
        lastFailure = nil
        reorder.insert(outcome.samples, now: phoneStreamUptime())
      } catch {
        if Task.isCancelled { return }
        let failure =
          (error as? SourceFailure).map {
            SourceFailure($0.kind, "phyphox at \(address): \($0.message)", isFatal: false)
          }
          // Advisory: polling goes on, and the stream resumes when the phone answers again.
          ?? SourceFailure(
            .disconnected,
            "phyphox at \(address): \(phoneStreamSocketErrorDescription(error) ?? "\(error)")",
            isFatal: false)
        if failure.message != lastFailure { events.append(.failure(failure)) }
        lastFailure = failure.message
      }
      events += reorder.releaseEvents(now: phoneStreamUptime(), source: "phyphox client")
      hub.deliver(events)
      // While the session keeps changing, /config is read again at most once a second, as for
      // an experiment with no input to read.
      let pause = sessionChanges >= Self.sessionChangeLimit ? max(pollPause, 1) : pollPause
      guard await phoneStreamPause(pause) else { return }
    }
  }

  /// The pause between polls: ``Configuration/pollInterval`` within 0.01 s…1 h. A pause of 0 or
  /// less, NaN or infinity (which the pause takes as none) polled without a pause, as fast as the
  /// phone answered, and a refusing one as fast as this machine could connect.
  private var pollPause: Double {
    let interval = configuration.pollInterval
    return interval >= 0.01 ? min(interval, 3_600) : 0.01
  }

  /// Session changes in a row, with no poll between them finding the session it expected,
  /// after which they are reported and rediscovery slows to once a second. A switch of
  /// experiments by the user is one change, or two when it falls while `/config` is read.
  package static let sessionChangeLimit = 5

  /// Counts one session change; from the ``sessionChangeLimit``-th in a row on, throws the
  /// notice of it, which the caller reports (once) like any other failed poll.
  private func countSessionChange(_ count: inout Int) throws {
    count = min(count + 1, Self.sessionChangeLimit)
    guard count >= Self.sessionChangeLimit else { return }
    throw SourceFailure(
      .other,
      "the phone changed its session on every request (\(Self.sessionChangeLimit) in a row), "
        + "so no experiment could be read; reading it again once a second. A proxy, or another "
        + "app answering at this address, may be the cause")
  }

  /// The session phyphox runs now: `status.session` of a `/get` for no buffer (phyphox answers
  /// one with the status alone); `nil` when the answer has none, as from a phyphox without
  /// sessions, whose switches cannot be seen at all.
  private func currentSession() async throws -> String? {
    let response = try await get("/get")
    guard response.status == 200, let status = try? PhoneJSON.parse(response.body)["status"]
    else { return nil }
    return status["session"]?.stringValue
  }

  /// The configured groups, or those `/config` describes, or the standard names for old phyphox
  /// (`/config` answered 404, or not with an experiment); with notes for people.
  ///
  /// - Throws: ``SourceFailure`` when `/config` is answered with a status other than 200 or 404.
  private func discoverGroups() async throws -> ([PhyphoxBufferGroup], [String]) {
    if let buffers = configuration.buffers { return (buffers, []) }
    let response = try await get("/config")
    // Only a phyphox without /config answers 404 for it. Another status is a read that failed (a
    // busy phone, a proxy), and taking it for an old phyphox put the standard names in place of
    // the experiment's until the next switch.
    guard response.status == 200 || response.status == 404 else {
      throw SourceFailure(.other, "phyphox /config answered HTTP \(response.status)")
    }
    guard response.status == 200, let config = try? PhoneJSON.parse(response.body),
      config["inputs"] != nil
    else {
      // phyphox before 1.1.6 has no /config: its raw-sensor names, and a note of what they lack.
      let standard = PhyphoxBufferGroup.standard
      return (standard, PhyphoxBufferGroup.lackingNote(for: standard).map { [$0] } ?? [])
    }
    return PhyphoxBufferGroup.discover(in: config)
  }
}
