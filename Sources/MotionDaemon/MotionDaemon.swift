// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionDaemonProtocol
import MotionFusion
import MotionSensors
import OpenCoreMotion

/// The motion daemon: owns one sensor source, shares it among any number of client processes over
/// a Unix socket (each at its own rate), and keeps the motion history.
///
/// The source is subscribed at the highest rate any client or the history needs, for the sensors
/// some client or the history needs (the others are switched off where the source allows it), and
/// unsubscribed when nobody needs it. Samples are fanned out on the source's delivery thread into
/// each client's bounded queue; each client has its own writer thread, so a slow or dead client
/// delays nobody.
///
/// Device motion is fused here, once for every client that asks for it: while any client wants
/// fused motion the source runs at its highest rate with the nine-axis sensors, one estimator
/// reads every sample, and each client receives the estimates due at its own rate.
public final class MotionDaemon: @unchecked Sendable {
  // Sendable because mutable state lives in Locked values (`hub`, `listener`, `instanceLock`,
  // `fusion`) or under `stoppedCondition` (`isFinished`), and the services are thread-safe.
  private struct Hub {
    var sessions: [UInt64: ClientSession] = [:]
    /// The sessions as an array, rebuilt on change, so delivery does not allocate per sample.
    var sessionList: [ClientSession] = []
    var nextSessionID: UInt64 = 0
    var subscription: SourceSubscription?
    var subscribedRate = 0.0
    /// The sensors the source is subscribed for (the others are switched off where it can).
    var subscribedSensors: SensorSet = []
    var generation: UInt64 = 0
    var samplesReceived: UInt64 = 0
    var isStopped = false
    /// Connections refused at the client limit since the last warning (one line per episode).
    var refusedConnections: UInt64 = 0
    /// The source's sensors as last announced to the clients (at first, as the source offered
    /// them when the daemon was made). See `announceSensorChange(to:)`.
    var offeredSensors: SensorSet
  }

  public let configuration: DaemonConfiguration
  public let source: any SensorSource
  private let logger: Logger
  let history: HistoryService
  private let hub: Locked<Hub>
  /// The fusion shared by every client that wants fused motion; `nil` while none does.
  private let fusion = Locked<Fusion?>(nil)
  /// Held while the source subscription is brought up to date (see `updateSourceSubscription`).
  private let subscriptionUpdate = NSLock()

  private struct Fusion {
    var feed: DeviceMotionFeed
    /// The source subscription it started with: it reads that subscription's samples and later
    /// ones' only, never the last samples of an older subscription at another rate.
    var firstGeneration: UInt64
  }
  /// The listening socket, once ``start()`` has made it; ``stop()`` may run on another thread
  /// meanwhile (a SIGTERM while the store opens).
  private let listener = Locked<UnixSocket?>(nil)
  /// Held from before the socket path is touched until after it is removed (see ``InstanceLock``).
  private let instanceLock = Locked<InstanceLock?>(nil)
  private let stoppedCondition = NSCondition()
  private var isFinished = false

  public init(source: any SensorSource, configuration: DaemonConfiguration, logger: Logger) {
    self.source = source
    self.configuration = configuration
    self.logger = logger
    hub = Locked(Hub(offeredSensors: source.availableSensors))
    var settings = HistoryService.Settings(directory: configuration.stateDirectory)
    settings.flushInterval = configuration.flushInterval
    settings.pruneInterval = configuration.pruneInterval
    settings.retryInterval = configuration.retryInterval
    settings.maximumPageCount = configuration.historyMaximumPageCount
    history = HistoryService(settings: settings, logger: logger)
  }

  /// Opens the history, listens on the socket and starts serving.
  public func start() throws {
    let directory = (configuration.socketPath as NSString).deletingLastPathComponent
    try DaemonPaths.makePrivateDirectory(directory)
    let lock = try InstanceLock(socketPath: configuration.socketPath)
    let listener: UnixSocket
    do { listener = try UnixSocket.listen(path: configuration.socketPath) } catch {
      lock.release()
      throw error
    }
    instanceLock.withLock { $0 = lock }
    self.listener.withLock { $0 = listener }
    // A stop that came first (a SIGTERM during start-up) found no listener to close.
    if hub.withLock({ $0.isStopped }) {
      listener.close()
      releaseInstance()
      return
    }
    // Accept first: opening the store runs SQLite's quick_check, which takes seconds on a large
    // history, and apps started meanwhile (at login) would time out in the handshake and fall
    // back to their own sensors. Live streams are served meanwhile, and queries wait for the
    // store (``HistoryService/withStoreForQuery(_:)``).
    history.readDenial()
    let thread = Thread { [self] in acceptLoop(listener) }
    thread.name = "motiond-accept"
    thread.start()
    // A denial or an allow given through another daemon on this state directory reaches this
    // one when it next opens its store or flushes: its clients are told then, as for a choice
    // given here.
    history.onPrivacyChangeFoundOnDisk.withLock {
      $0 = { [weak self] in
        guard let self else { return }
        updateSourceSubscription()
        for session in hub.withLock({ $0.sessionList }) { session.notifyAuthorizationChange() }
      }
    }
    history.start()
    // A stop while the store opened (seconds, for a large one) found it not yet open: close it.
    if hub.withLock({ $0.isStopped }) {
      history.stop()
      return
    }
    updateSourceSubscription()
    logger.info(
      "motiond serving \(source.name) on \(configuration.socketPath) (sensors \(source.availableSensors))"
    )
  }

  /// Stops serving: closes the socket and every client, unsubscribes the source, commits the
  /// history.
  public func stop() {
    let (sessions, subscription) = hub.withLock { h -> ([ClientSession], SourceSubscription?) in
      h.isStopped = true
      defer {
        h.subscription = nil
        h.subscribedRate = 0
        h.subscribedSensors = []
      }
      return (h.sessionList, h.subscription)
    }
    listener.withLock { $0 }?.close()
    releaseInstance()
    for session in sessions { session.close() }
    subscription?.cancel()
    history.stop()
    logger.info("motiond stopped")
    stoppedCondition.withLock {
      isFinished = true
      stoppedCondition.broadcast()
    }
  }

  /// Blocks until ``stop()`` has run.
  public func waitUntilStopped() {
    stoppedCondition.withLock {
      while !isFinished { stoppedCondition.wait() }
    }
  }

  // MARK: Connections

  /// Removes the socket and releases the instance lock, if this daemon holds it.
  private func releaseInstance() {
    if let lock = instanceLock.withLock({ l -> InstanceLock? in
      defer { l = nil }
      return l
    }) {
      // Only the lock's holder may remove the socket: it is its own.
      unlink(configuration.socketPath)
      lock.release()
    }
  }

  private func acceptLoop(_ listener: UnixSocket) {
    var limits = ClientSession.Limits()
    limits.replyBytes = max(1, configuration.clientReplyBytes)
    limits.subscriptions = max(1, configuration.maximumSubscriptionsPerClient)
    limits.frameDeadline = configuration.frameDeadline
    var failures = AcceptFailures()
    while true {
      let accepted: UnixSocket?
      do { accepted = try listener.accept() } catch {
        // Out of descriptors or memory: connections wait in the backlog meanwhile. Stopping here
        // would leave the daemon running but deaf to every app until it is restarted.
        let pause = failures.note()
        if failures.count == 1 {
          logger.warning(
            "cannot accept connections (\(error)); retrying with pauses of up to \(AcceptFailures.maximumPause) s"
          )
        } else {
          logger.debug("accepting a connection failed again (\(error))")
        }
        Thread.sleep(forTimeInterval: pause)
        continue
      }
      guard let socket = accepted else { return }
      // The socket is 0600 in a 0700 folder, so only this user reaches it; a socket path in a
      // shared folder (`MOTIOND_SOCKET`) must not open the history to every user either.
      guard socket.isPeerTrusted else {
        logger.warning(
          "refused a connection from another user (uid \(socket.peerUserID.map(String.init) ?? "unknown"))"
        )
        socket.close()
        continue
      }
      if failures.count > 0 {
        logger.notice("accepting connections again (\(failures.count) accept calls failed)")
        failures = AcceptFailures()
      }
      let admitted = hub.withLock { h -> Result<ClientSession, ConnectionRefusal> in
        guard !h.isStopped else { return .failure(.stopping) }
        guard h.sessions.count < configuration.maximumClients else {
          h.refusedConnections += 1
          return .failure(.full(firstSinceWarning: h.refusedConnections == 1))
        }
        h.nextSessionID += 1
        let session = ClientSession(
          id: h.nextSessionID, socket: socket, streamCapacity: configuration.clientQueueCapacity,
          limits: limits, logger: logger,
          onRequest: { [weak self] session, request in self?.handle(request, from: session) ?? [] },
          authorizationNotice: { [weak self] in self?.authorizationChange() },
          onClose: { [weak self] session in self?.remove(session) })
        h.sessions[session.id] = session
        h.sessionList = Array(h.sessions.values)
        return .success(session)
      }
      let session: ClientSession
      switch admitted {
      case .success(let admittedSession): session = admittedSession
      case .failure(.stopping):
        socket.close()
        return
      case .failure(.full(let firstSinceWarning)):
        if firstSinceWarning {
          logger.warning(
            "refusing connections: \(configuration.maximumClients) clients are connected (the limit)"
          )
        }
        // A fresh socket's buffer takes this small frame without blocking the accept loop.
        try? socket.write(
          Wire.frame(
            Wire.error(
              .notAvailable,
              "motiond serves at most \(configuration.maximumClients) clients at once; try again later",
              requestID: 0)))
        socket.close()
        continue
      }
      logger.info("client \(session.id) connected (pid \(session.processID))")
      session.start()
    }
  }

  private func remove(_ session: ClientSession) {
    let refused = hub.withLock { h -> UInt64 in
      h.sessions.removeValue(forKey: session.id)
      h.sessionList = Array(h.sessions.values)
      defer { h.refusedConnections = 0 }
      return h.refusedConnections
    }
    if refused > 0 {
      logger.notice("accepting connections again (\(refused) refused at the client limit)")
    }
    updateSourceSubscription()
  }

  // MARK: Source

  /// Subscribes the source at the highest demanded rate for the demanded sensors, resubscribes
  /// when either changes, and unsubscribes when nobody needs samples.
  ///
  /// Serialised: two clients' requests (each on its reader thread) must not act on each other's
  /// stale view of the demand, or the later one could switch off the fusion the other just
  /// started. The source's delivery thread never takes this lock, so waiting in `cancel()` here
  /// cannot deadlock with it.
  private func updateSourceSubscription() {
    subscriptionUpdate.lock()
    defer { subscriptionUpdate.unlock() }
    let sessions = hub.withLock { $0.sessionList }
    let clientRate = sessions.map(\.demandedRate).max() ?? 0
    let wantsLive = sessions.contains { $0.demandsLive }
    let wantsFusedMotion = sessions.contains { $0.demandsFusedMotion }
    let historyRate = history.demandedRate
    var rate = max(clientRate, historyRate)
    if rate == 0, wantsLive { rate = 50 }
    // The estimator reads every sample the source can give, as it does in-process.
    if wantsFusedMotion { rate = source.supportedSampleRates.upperBound }
    if rate > 0 {
      rate = min(
        max(rate, source.supportedSampleRates.lowerBound), source.supportedSampleRates.upperBound)
    }
    // The detectors behind the history and the live updates read the accelerometer (steps,
    // activity, recording), the gyroscope (steps a limb's strides show) and the barometer
    // (floors, altitude); clients add what they stream.
    var sensors = sessions.reduce(into: SensorSet()) { $0.formUnion($1.demandedSensors) }
    if historyRate > 0 || wantsLive { sensors.formUnion([.accelerometer, .gyroscope, .barometer]) }
    if wantsFusedMotion { sensors.formUnion(DeviceMotionFeed.sensorsRead) }
    sensors.formIntersection(source.availableSensors)
    if rate == 0 { sensors = [] }
    let (old, generation, current) = hub.withLock { h -> (SourceSubscription?, UInt64?, UInt64) in
      guard !h.isStopped, rate != h.subscribedRate || sensors != h.subscribedSensors else {
        return (nil, nil, h.generation)
      }
      h.generation += 1
      h.subscribedRate = rate
      h.subscribedSensors = sensors
      let old = h.subscription
      h.subscription = nil
      return (old, rate > 0 ? h.generation : nil, h.generation)
    }
    // The estimator starts when the first client asks for fused motion and keeps running (across
    // later changes of subscription) until the last one leaves.
    fusion.withLock { fusion in
      if !wantsFusedMotion {
        fusion = nil
      } else if fusion == nil {
        fusion = Fusion(
          feed: DeviceMotionFeed(
            samplePeriod: source.shortestSamplePeriod, timing: source.sampleTiming),
          firstGeneration: current)
      }
    }
    if let generation {
      // Subscribe before cancelling the old subscription so a player does not pause in between;
      // the generation check drops the old one's last deliveries.
      let subscription = source.subscribe(requestedSampleRate: rate, sensors: sensors) {
        [weak self] event in
        self?.receive(event, generation: generation)
      }
      let stale = hub.withLock { h -> SourceSubscription? in
        guard h.generation == generation, !h.isStopped else { return subscription }
        h.subscription = subscription
        return nil
      }
      stale?.cancel()
      logger.info("source \(source.name) subscribed at \(rate) Hz for \(sensors)")
    } else if old != nil, rate == 0 {
      logger.info("source \(source.name) unsubscribed: no client or history needs it")
    }
    old?.cancel()
  }

  private func receive(_ event: SourceEvent, generation: UInt64) {
    let receivedNanoseconds = UInt64(max(0, BootClock.now * 1e9))
    guard
      let (sessions, offered) = hub.withLock({ h -> ([ClientSession], SensorSet)? in
        guard h.generation == generation, !h.isStopped else { return nil }
        h.samplesReceived &+= 1
        return (h.sessionList, h.offeredSensors)
      })
    else { return }
    // Asked at every event (a property read, a lock at most): a source that drops a sensor does
    // so before it reports it (`SensorSource`), and one that offers it again may say nothing.
    if source.availableSensors != offered { announceSensorChange(to: sessions) }
    switch event {
    case .sample(let sample):
      for session in sessions {
        session.deliver(sample, receivedBootNanoseconds: receivedNanoseconds)
      }
      let estimate = fusion.withLock { fusion -> DeviceMotionEstimate? in
        guard fusion != nil, generation >= fusion!.firstGeneration else { return nil }
        return fusion!.feed.update(with: sample)
      }
      if let estimate {
        for session in sessions {
          session.deliver(estimate, receivedBootNanoseconds: receivedNanoseconds)
        }
      }
      let updates = history.process(sample, now: Date().timeIntervalSince1970)
      for update in updates {
        for session in sessions { session.deliver(update) }
      }
    case .failure(let failure):
      var wire = Opencoremotion_Daemon_V1_SourceEvent()
      wire.kind = .failure
      wire.failureKind = failure.kind.rawValue
      wire.message = failure.message
      // Without it a client takes every failure for fatal, and one malformed message of a phone
      // source would end every client's async sequences.
      wire.advisory = !failure.isFatal
      logger.warning("source \(source.name) failed: \(failure.message)")
      // After the notice of a change this failure reports (above): each client takes in the new
      // sensors first, so that the failure finds them, as it would from the source directly.
      for session in sessions { session.deliver(sourceEvent: wire) }
    case .finished:
      var wire = Opencoremotion_Daemon_V1_SourceEvent()
      wire.kind = .finished
      logger.notice("source \(source.name) finished")
      for session in sessions { session.deliver(sourceEvent: wire) }
    }
  }

  /// Tells every client the source's sensors when they differ from those last told: a phone
  /// stream drops its gyroscope once it learns the phone streams none, and clients that kept the
  /// handshake's set waited for device motion for ever. Then the source is subscribed again for
  /// the sensors it still offers (on a thread of its own: this runs on the source's delivery
  /// thread, which `updateSourceSubscription` must never run on).
  private func announceSensorChange(to sessions: [ClientSession]) {
    let current = source.availableSensors
    let changed = hub.withLock { h -> Bool in
      guard h.offeredSensors != current else { return false }
      h.offeredSensors = current
      return true
    }
    guard changed else { return }
    logger.notice("source \(source.name) now offers \(current)")
    var notice = WireServerMessage()
    notice.requestID = 0
    notice.sourceSensors = Self.sourceSensors(current)
    for session in sessions { session.deliver(sourceSensors: notice) }
    let thread = Thread { [weak self] in self?.updateSourceSubscription() }
    thread.name = "motiond-source-sensors"
    thread.start()
  }

  /// What the daemon serves of `sensors`: they, and fused motion when they include the
  /// accelerometer and the gyroscope.
  private static func sourceSensors(_ sensors: SensorSet) -> Opencoremotion_Daemon_V1_SourceSensors
  {
    var wire = Opencoremotion_Daemon_V1_SourceSensors()
    wire.availableSensors = Wire.sensorBits(sensors)
    wire.servesFusedMotion = sensors.isSuperset(of: .inertial)
    return wire
  }

  // MARK: Requests

  private func handle(
    _ request: WireClientMessage, from session: ClientSession
  ) -> [WireServerMessage] {
    let id = request.requestID
    var reply = WireServerMessage()
    reply.requestID = id
    switch request.body {
    case .hello(let hello):
      // 200 Unicode scalars, not Characters: one Character can be a letter followed by millions of
      // combining marks, and the name is kept for the connection's life and copied into every
      // status answer.
      session.name =
        hello.clientName.isEmpty
        ? "pid \(session.processID)"
        : String(String.UnicodeScalarView(hello.clientName.unicodeScalars.prefix(200)))
      var answer = Opencoremotion_Daemon_V1_HelloReply()
      answer.protocolVersion = Wire.protocolVersion
      answer.sourceName = source.name
      answer.availableSensors = Wire.sensorBits(source.availableSensors)
      answer.minRateHz = source.supportedSampleRates.lowerBound
      answer.maxRateHz = source.supportedSampleRates.upperBound
      answer.historyAuthorized = history.condition != .denied
      answer.servesFusedMotion = source.availableSensors.isSuperset(of: .inertial)
      reply.hello = answer
      return [reply]
    case .subscribe(let subscribe):
      let range = source.supportedSampleRates
      guard subscribe.rateHz.isFinite, subscribe.rateHz >= 0 else {
        return [Wire.error(.invalidParameter, "rate_hz must be a finite number ≥ 0", requestID: id)]
      }
      let rate = min(max(subscribe.rateHz, range.lowerBound), range.upperBound)
      let sensors = Wire.sensorSet(subscribe.sensors).intersection(source.availableSensors)
      let fusedMotion = subscribe.fusedMotion && source.availableSensors.isSuperset(of: .inertial)
      var deviceMotion: DeviceMotionDelivery?
      if subscribe.deviceMotionFrame != .unspecified {
        switch DeviceMotionDelivery.make(
          subscribe.deviceMotionFrame, sensors: source.availableSensors)
        {
        case .success(let delivery): deviceMotion = delivery
        case .failure(let refusal):
          return [Wire.error(refusal.code, refusal.message, requestID: id)]
        }
      }
      // Counted outside the hub's lock (each session has its own); two clients subscribing at
      // the same instant may both pass at the limit.
      let total = hub.withLock { $0.sessionList }.reduce(0) { $0 + $1.subscriptionCount }
      let outcome = session.addSubscription(
        ClientSubscription(
          id: id, sensors: sensors, rate: rate, pedometer: subscribe.pedometer,
          activity: subscribe.activity, altitude: subscribe.altitude, fusedMotion: fusedMotion,
          deviceMotion: deviceMotion),
        daemonIsFull: total >= configuration.maximumSubscriptions)
      switch outcome {
      case .added:
        break
      case .connectionIsFull:
        return [
          Wire.error(
            .notAvailable,
            "too many subscriptions: at most \(configuration.maximumSubscriptionsPerClient) per connection; unsubscribe first",
            requestID: id)
        ]
      case .daemonIsFull:
        // Debug level: the client gets the error, and a client retrying in a loop must not
        // flood the log.
        logger.debug(
          "refused a subscription: the daemon's clients hold \(total) (at most \(configuration.maximumSubscriptions))"
        )
        return [
          Wire.error(
            .notAvailable,
            "too many subscriptions: the daemon serves at most \(configuration.maximumSubscriptions) for all clients together; try again later",
            requestID: id)
        ]
      }
      updateSourceSubscription()
      reply.ack = Opencoremotion_Daemon_V1_Acknowledgement()
      return [reply]
    case .unsubscribe(let unsubscribe):
      session.removeSubscription(unsubscribe.subscriptionID)
      updateSourceSubscription()
      reply.ack = Opencoremotion_Daemon_V1_Acknowledgement()
      return [reply]
    case .status:
      reply.status = status()
      return [reply]
    case .pedometerQuery(let query):
      return answerPedometer(query, id: id)
    case .activityQuery(let query):
      return answerActivity(query, id: id)
    case .accelerometerQuery(let query):
      return streamAccelerometer(query, id: id, to: session)
    case .recordAccelerometer(let record):
      switch history.recordAccelerometer(
        duration: record.duration, now: Date().timeIntervalSince1970)
      {
      case .success(let until):
        var ack = Opencoremotion_Daemon_V1_Acknowledgement()
        ack.untilDate = until
        reply.ack = ack
        return [reply]
      case .failure(let error):
        return [Wire.error(error.code, error.message, requestID: id)]
      }
    case .setPrivacy(let privacy):
      history.setAllowed(privacy.allow)
      updateSourceSubscription()
      // Every client learns the new choice at once (request_id 0), so their cached
      // authorization status never lags behind the user's decision. Each other client holds at
      // most one such notice unsent, so one client changing privacy in a loop cannot fill the
      // queues of clients that read slowly.
      for other in hub.withLock({ $0.sessionList }) where other !== session {
        other.notifyAuthorizationChange()
      }
      reply.ack = Opencoremotion_Daemon_V1_Acknowledgement()
      // The requester too, before its acknowledgement.
      return [authorizationChange(), reply]
    case .authorizationQuery:
      reply.authorization = authorization()
      return [reply]
    case nil:
      return [Wire.error(.protocol, "empty or unknown request", requestID: id)]
    }
  }

  /// The unrequested message that tells a client the current authorization.
  private func authorizationChange() -> WireServerMessage {
    var change = WireServerMessage()
    change.authorization = authorization()
    return change
  }

  private func authorization() -> Opencoremotion_Daemon_V1_Authorization {
    var answer = Opencoremotion_Daemon_V1_Authorization()
    answer.historyAuthorized = history.condition != .denied
    return answer
  }

  /// Why `[from, to]` is not a range a query can answer, or `nil` when it is.
  private static func rangeProblem(_ from: Double, _ to: Double) -> String? {
    guard from.isFinite, to.isFinite else {
      return "from_date and to_date must be finite numbers (s since 1970), not NaN or infinity"
    }
    return from <= to ? nil : "from_date must not be after to_date"
  }

  private func answerPedometer(
    _ query: Opencoremotion_Daemon_V1_PedometerQuery, id: UInt64
  ) -> [WireServerMessage] {
    if let problem = Self.rangeProblem(query.fromDate, query.toDate) {
      return [Wire.error(.invalidParameter, problem, requestID: id)]
    }
    let now = Date().timeIntervalSince1970
    // Only the retained days answer, whenever the hourly prune last ran.
    switch history.pedometerTotals(
      from: Swift.max(query.fromDate, now - HistoryStore.motionRetention), to: query.toDate,
      now: now)
    {
    case .failure(let error): return [Wire.error(error.code, error.message, requestID: id)]
    case .success(let (totals, counters)):
      var answer = Opencoremotion_Daemon_V1_PedometerTotals()
      answer.fromDate = query.fromDate
      answer.toDate = query.toDate
      answer.steps = Double(totals.steps)
      answer.distance = totals.distance
      answer.floorsAscended = Double(totals.floorsAscended)
      answer.floorsDescended = Double(totals.floorsDescended)
      answer.activeSeconds = totals.activeSeconds
      answer.counters = counters
      var reply = WireServerMessage()
      reply.requestID = id
      reply.pedometer = answer
      return [reply]
    }
  }

  private func answerActivity(
    _ query: Opencoremotion_Daemon_V1_ActivityQuery, id: UInt64
  ) -> [WireServerMessage] {
    if let problem = Self.rangeProblem(query.fromDate, query.toDate) {
      return [Wire.error(.invalidParameter, problem, requestID: id)]
    }
    // Nothing is known of a window that begins in the future: the activity recorded last may
    // have ended by then, and the store would offer it as the one in force.
    // Only the retained days answer, whenever the hourly prune last ran.
    let now = Date().timeIntervalSince1970
    let from = Swift.max(query.fromDate, now - HistoryStore.motionRetention)
    guard query.fromDate <= now, from <= query.toDate else {
      return [Wire.error(.noData, "no activity recorded in that range", requestID: id)]
    }
    let answered = history.withStoreForQuery { store -> [WireServerMessage] in
      do {
        let changes = try store.activities(from: from, to: query.toDate)
        guard !changes.isEmpty else {
          return [Wire.error(.noData, "no activity recorded in that range", requestID: id)]
        }
        var answer = Opencoremotion_Daemon_V1_ActivitySegments()
        answer.segments = changes.map(HistoryService.wireSegment)
        var reply = WireServerMessage()
        reply.requestID = id
        reply.activities = answer
        return [reply]
      } catch {
        return [Wire.error(.notAvailable, "history query failed: \(error)", requestID: id)]
      }
    }
    switch answered {
    case .failure(let error): return [Wire.error(error.code, error.message, requestID: id)]
    case .success(let replies): return replies
    }
  }

  /// Samples per `RecordedAccelerometer` message (about 0.5 MB).
  private static let accelerometerChunk = 10_000
  /// Samples read per store query of a recorded-accelerometer answer (two messages' worth).
  private static let accelerometerReadLimit = 2 * accelerometerChunk

  /// Answers a recorded-accelerometer query in chunks sent as the client drains them: the store is
  /// read ``accelerometerReadLimit`` samples at a time, and the next read only once the client's
  /// unsent replies are within its limit, so a 12 h answer (2.16 M samples, ~110 MB) never sits
  /// in memory whole, and a client that does not read holds one read of it, however densely the
  /// store is filled (it used to be read 300 s at a time: 30,000 samples at 100 Hz, and any
  /// number in a store written by someone else). The store is not held while waiting (a privacy
  /// denial must not wait for a client); a denial between two reads ends the answer with that
  /// error.
  private func streamAccelerometer(
    _ query: Opencoremotion_Daemon_V1_AccelerometerQuery, id: UInt64, to session: ClientSession
  ) -> [WireServerMessage] {
    let to = query.toDate
    if let problem = Self.rangeProblem(query.fromDate, to) {
      return [Wire.error(.invalidParameter, problem, requestID: id)]
    }
    guard to - query.fromDate <= 43_200 else {
      return [Wire.error(.invalidParameter, "the range must be at most 12 h long", requestID: id)]
    }
    // Only the retained days answer, whenever the hourly prune last ran.
    let from = Swift.max(
      query.fromDate, Date().timeIntervalSince1970 - HistoryStore.accelerometerRetention)
    var pending: [Opencoremotion_Daemon_V1_RecordedSample] = []
    var position: HistoryStore.RecordedPosition?
    while true {
      // A client gone mid-answer stops it (its queued replies would only be discarded).
      guard session.isOpen else { return [] }
      let read = history.withStoreForQuery { store in
        Result {
          try store.accelerometer(
            from: from, to: to, after: position, limit: Self.accelerometerReadLimit
          ) { chunk in
            for item in chunk {
              var sample = Opencoremotion_Daemon_V1_RecordedSample()
              sample.identifier = item.identifier
              sample.timestamp = item.timestamp
              sample.date = item.date
              sample.acceleration = Wire.vector(item.acceleration)
              pending.append(sample)
            }
          }
        }
      }
      let isLast: Bool
      switch read {
      case .failure(let error): return [Wire.error(error.code, error.message, requestID: id)]
      case .success(.failure(let error)):
        return [Wire.error(.notAvailable, "history query failed: \(error)", requestID: id)]
      case .success(.success(let stoppedAt)):
        isLast = stoppedAt == nil
        position = stoppedAt
      }
      while pending.count >= Self.accelerometerChunk || isLast {
        let count = min(Self.accelerometerChunk, pending.count)
        var answer = Opencoremotion_Daemon_V1_RecordedAccelerometer()
        answer.samples = Array(pending[..<count])
        pending.removeFirst(count)
        answer.complete = isLast && pending.isEmpty
        var reply = WireServerMessage()
        reply.requestID = id
        reply.recorded = answer
        guard session.sendWhenRoom(reply), !answer.complete else { return [] }
      }
    }
  }

  /// The daemon's state for `motionctl status`.
  func status() -> WireStatus {
    var status = WireStatus()
    status.sourceName = source.name
    status.availableSensors = Wire.sensorBits(source.availableSensors)
    let (sessions, rate, sensors, subscribed, received) = hub.withLock {
      (
        $0.sessionList.sorted { $0.id < $1.id }, $0.subscribedRate, $0.subscribedSensors,
        $0.subscription != nil,
        $0.samplesReceived
      )
    }
    status.sourceRateHz = rate
    status.sourceSensors = Wire.sensorBits(sensors)
    status.sourceSubscribed = subscribed
    status.samplesReceived = received
    status.clients = sessions.map { session in
      let snapshot = session.snapshot
      var client = Opencoremotion_Daemon_V1_ClientStatus()
      client.name = snapshot.name
      client.pid = UInt32(clamping: session.processID)
      client.dropped = snapshot.dropped
      client.queued = UInt32(clamping: snapshot.queued)
      client.subscriptions = snapshot.subscriptions.map { subscription in
        var wire = Opencoremotion_Daemon_V1_SubscriptionStatus()
        wire.id = subscription.id
        wire.sensors = Wire.sensorBits(subscription.sensors)
        wire.rateHz =
          subscription.sensors.isEmpty && !subscription.readsFusion ? 0 : subscription.rate
        wire.pedometer = subscription.pedometer
        wire.activity = subscription.activity
        wire.altitude = subscription.altitude
        wire.fusedMotion = subscription.fusedMotion
        wire.deviceMotionFrame = subscription.deviceMotion?.wireFrame ?? .unspecified
        return wire
      }
      return client
    }
    history.waitForTheFirstOpenAttempt()
    let condition = history.condition
    status.historyAuthorized = condition != .denied
    status.historyState = condition.text
    status.recordingUntilDate = history.recordingUntil
    _ = history.withStoreForQuery { store in
      status.storePath = store.path
      status.historyBytes = store.sizeInBytes
      if let extent = try? store.extent() {
        status.historyOldestDate = extent.oldest
        status.historyNewestDate = extent.newest
      }
    }
    return status
  }
}
