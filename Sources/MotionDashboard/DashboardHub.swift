// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionSensors
import NIOCore
import OpenCoreMotion
import SourceComposition

/// The dashboard's state shared by every connection: the current source's feed, the connected
/// clients' queues, and the frame broadcaster.
///
/// Control (connecting, disconnecting, a page's requests, switching the source) is serialised by
/// the actor. The frame broadcast is not: it runs about 30 times a second on an event loop
/// (``broadcast()``), and going through the actor would cost every frame a hop to a pool thread
/// (docs/Dashboard.md). What the broadcast reads — the feed, the clients, the frame counters — is
/// therefore kept in ``registry``, under its lock, and written there by the actor's methods.
///
/// Frames follow the data: while samples flow, the feed asks for a frame from the source's
/// delivery thread, one per ``framePeriod`` on a schedule of its own, and the request runs the
/// broadcast on the frame loop (`EventLoop.execute`: one wake-up of a loop that would wake to
/// write the frame anyway). A slow timer on the same loop (every ``heartbeatPeriod``) sends the
/// state while nothing arrives. A timer at the frame rate took about a fifth of the server's CPU
/// at 100 Hz (rescheduling itself and re-arming the loop's `timerfd` every 33 ms), and ticked
/// while the source was stopped.
package actor DashboardHub {
  /// How often a frame goes out while data arrives, s (about one per animation frame at 30 Hz).
  package static let framePeriod = 0.033
  /// How often the batch is taken (and dropped) while the source runs without a client, s, so
  /// that it never grows.
  package static let idleFramePeriod = 0.25
  /// The slow timer's period, s: with nothing new, a page still gets a frame this often (state,
  /// counters).
  package static let heartbeatPeriod = 0.5
  /// Display rates offered to the page, Hz (capped at the source's highest rate).
  package static let offeredRates: [Double] = [10, 25, 50, 100, 200]

  /// What the broadcast and the control methods share.
  private struct Registry {
    var feed: DashboardFeed
    var clients: [UInt64: DashboardClientQueue] = [:]
    /// Foxglove clients (`foxglove.websocket.v1` on the same endpoint), apart from the pages: they
    /// get the batch's rows per channel rather than the page's frames.
    var foxgloveClients: [UInt64: FoxgloveConnection] = [:]
    var sequence = 0
    /// Monotonic time (s) of the last frame sent to the pages.
    var lastFrameSent = -Double.infinity
    /// Frames dropped for connections that have closed (the open ones count their own).
    var droppedByClosedClients = 0
    /// Set by ``shutDown()``: no feed starts after it (a page connecting while it waits).
    var isShutDown = false

    var isEmpty: Bool { clients.isEmpty && foxgloveClients.isEmpty }

    /// Frames dropped since start, over every connection (open or closed).
    var droppedFrames: Int {
      clients.values.reduce(droppedByClosedClients) { $0 + $1.droppedFrames }
    }
  }

  private let registry: Locked<Registry>
  /// Identifies this server run to Foxglove clients (they tell a reconnection from a new server).
  private let sessionID = String(Int(Date().timeIntervalSince1970 * 1000))
  private var nextClient: UInt64 = 0
  private let recorder: DashboardRecorder
  private let hasHistory: Bool
  private let stopsSourceWhenIdle: Bool
  private let logger = Logger(label: "MotionDashboard.hub")
  private let makeSource: @Sendable (SourceSpecification) throws -> any SensorSource

  package init(
    feed: DashboardFeed, recorder: DashboardRecorder, hasHistory: Bool,
    stopsSourceWhenIdle: Bool = false,
    makeSource: @escaping @Sendable (SourceSpecification) throws -> any SensorSource
  ) {
    registry = Locked(Registry(feed: feed))
    self.stopsSourceWhenIdle = stopsSourceWhenIdle
    self.recorder = recorder
    self.hasHistory = hasHistory
    self.makeSource = makeSource
  }

  /// The current feed.
  private var feed: DashboardFeed { registry.withLock { $0.feed } }

  /// Where feeds start and stop, in the order the hub asks, each step on the feed current when
  /// it runs. Starting or stopping a source can block for seconds (a phone-stream server binding
  /// its port and waiting for its task, a daemon's handshake), and the actor runs on Swift
  /// concurrency's shared threads, which the dashboard's connections share: one thread on a
  /// one-processor machine, where the phone-stream server's task waited for the very thread its
  /// start was blocking.
  private let sourceQueue = DispatchQueue(label: "MotionDashboard.hub.source")

  /// Starts the current feed (if it has not started), on ``sourceQueue``.
  private nonisolated func startFeed() {
    sourceQueue.async { [registry] in
      registry.withLock { $0.isShutDown ? nil : $0.feed }?.start()
    }
  }

  /// Stops the current feed when no client is connected then and nothing records it (a source
  /// that stops when idle), on ``sourceQueue``: a page that connected meanwhile keeps it.
  private nonisolated func stopFeedIfIdle() {
    sourceQueue.async { [registry, recorder, logger] in
      let idleFeed = registry.withLock { $0.isEmpty ? $0.feed : nil }
      guard let idleFeed, !recorder.status.isRecording else { return }
      idleFeed.stop()
      logger.info("last page closed: source unsubscribed until the next one")
    }
  }

  /// Waits until what ``sourceQueue`` was asked before has been done.
  private nonisolated func sourceQueueDrained() async {
    await withCheckedContinuation { continuation in
      sourceQueue.async { continuation.resume() }
    }
  }

  /// The heartbeat timer, and the event loop it runs on.
  private var frameTimer: (task: RepeatedTask, eventLoop: any EventLoop)?
  /// The loop that broadcasts: the frame timer's. The feed's frame requests read it from the
  /// source's delivery thread, hence the lock.
  private let frameLoop = Locked<(any EventLoop)?>(nil)

  /// Broadcasts on `eventLoop` from now on: the frames the feed requests, and a heartbeat every
  /// ``heartbeatPeriod`` (replacing the timer in use). Each wake-up is the loop's own: no timer
  /// thread, no pool thread.
  package func startFrameTimer(on eventLoop: any EventLoop) {
    frameTimer?.task.cancel()
    frameLoop.withLock { $0 = eventLoop }
    let period = TimeAmount.nanoseconds(Int64(Self.heartbeatPeriod * 1e9))
    let task = eventLoop.scheduleRepeatedTask(initialDelay: period, delay: period) {
      [weak self] _ in self?.broadcast(heartbeat: true)
    }
    frameTimer = (task, eventLoop)
  }

  /// Stops the heartbeat and the frame requests.
  package func stopFrameTimer() {
    frameTimer?.task.cancel()
    frameTimer = nil
    frameLoop.withLock { $0 = nil }
  }

  /// Has `feed` request frames every ``framePeriod`` while a client is connected, every
  /// ``idleFramePeriod`` otherwise.
  private func configureFrameRequests(of feed: DashboardFeed) {
    let period = registry.withLock { $0.isEmpty } ? Self.idleFramePeriod : Self.framePeriod
    feed.setFrameRequests(period: period) { [weak self] in self?.requestFrame() }
  }

  /// Runs ``broadcast()`` on the frame loop (called from the source's delivery thread).
  private nonisolated func requestFrame() {
    frameLoop.withLock { $0 }?.execute { [weak self] in self?.broadcast() }
  }

  /// Adds a client; it gets the `hello` message first. The first client starts the source, so a
  /// simulation or a recording plays from its beginning when the page opens.
  ///
  /// `eventLoop` is the connection's: when it is the only client, the frame timer moves there,
  /// so that a frame is encoded and written on one thread (one wake-up per frame, not one on the
  /// timer's loop and another on the connection's).
  package func connect(
    on eventLoop: (any EventLoop)? = nil, format: DashboardFrameFormat = .json
  ) -> Connection {
    startFeed()
    nextClient += 1
    let id = nextClient
    let queue = DashboardClientQueue(format: format)
    // The greeting goes first, before the broadcast can offer this queue a frame.
    queue.offer(hello())
    let wasEmpty = registry.withLock { registry in
      let wasEmpty = registry.isEmpty
      registry.clients[id] = queue
      return wasEmpty
    }
    if wasEmpty, let eventLoop, let timer = frameTimer, timer.eventLoop !== eventLoop {
      startFrameTimer(on: eventLoop)
    }
    if wasEmpty { configureFrameRequests(of: feed) }
    return (id, queue)
  }

  /// A page's connection: its identifier (for ``disconnect(_:)``) and its queue of frames.
  package typealias Connection = (id: UInt64, queue: DashboardClientQueue)

  /// Adds a Foxglove client; like a page, the first client starts the source.
  package func connectFoxglove() -> (id: UInt64, connection: FoxgloveConnection) {
    startFeed()
    nextClient += 1
    let connection = FoxgloveConnection(
      serverName: "OpenCoreMotion dashboard (\(feed.specification.displayDescription))",
      sessionID: sessionID)
    let wasEmpty = registry.withLock { registry in
      let wasEmpty = registry.isEmpty
      registry.foxgloveClients[nextClient] = connection
      return wasEmpty
    }
    if wasEmpty { configureFrameRequests(of: feed) }
    return (nextClient, connection)
  }

  package func disconnect(_ id: UInt64) {
    let isEmpty: Bool? = registry.withLock { registry in
      if let connection = registry.foxgloveClients.removeValue(forKey: id) {
        connection.finish()
      } else if let queue = registry.clients.removeValue(forKey: id) {
        registry.droppedByClosedClients += queue.droppedFrames
        queue.finish()
      } else {
        return nil
      }
      return registry.isEmpty
    }
    if isEmpty == true { configureFrameRequests(of: feed) }
    // A recording in progress keeps the source even without a page.
    if isEmpty == true, stopsSourceWhenIdle { stopFeedIfIdle() }
  }

  /// Takes what the feed collected and offers it to every client as one frame; called for each
  /// frame the feed requests, and by the heartbeat (`heartbeat`), which does nothing when a frame
  /// went out less than about a ``heartbeatPeriod`` ago. Without clients the batch is still taken
  /// (and dropped), so it never grows. Safe from any thread: a call holds ``registry``'s lock
  /// throughout (two calls overlap only while the frame loop moves to another loop).
  package nonisolated func broadcast(heartbeat: Bool = false) {
    registry.withLock { registry in
      // The margin keeps a heartbeat that comes just before the half second from skipping a turn.
      let now = monotonicSeconds()
      let recentlySent = now - registry.lastFrameSent < 0.8 * Self.heartbeatPeriod
      if heartbeat, recentlySent, !registry.isEmpty { return }
      let feed = registry.feed
      feed.setRawGyroscopeRequested(
        registry.foxgloveClients.values.contains { $0.isSubscribed(to: .gyroscope) })
      let (batch, state) = feed.take()
      if !batch.isEmpty {
        for connection in registry.foxgloveClients.values { connection.offer(batch) }
      }
      // With nothing new, a page still gets a frame twice a second (state, counters).
      guard !registry.clients.isEmpty, !batch.isEmpty || !recentlySent else { return }
      registry.lastFrameSent = now
      registry.sequence += 1
      // Each format's shared part is made once, and only when a client reads that format.
      var bodies: [DashboardFrameFormat: String] = [:]
      var rowSection: ByteBuffer?
      let recording = recorder.status
      let serverDropped = registry.droppedFrames
      let clientCount = registry.clients.count
      for queue in registry.clients.values {
        let format = queue.format
        let body =
          bodies[format]
          ?? DashboardFrameEncoder.dataFrameBody(
            sequence: registry.sequence, batch: batch, state: state, recording: recording,
            rows: format)
        bodies[format] = body
        let text = DashboardFrameEncoder.finish(
          body, droppedFrames: queue.droppedFrames, sentFrames: queue.sentFrames,
          serverClients: clientCount, serverDroppedFrames: serverDropped)
        switch format {
        case .json:
          queue.offer(.text(text))
        case .binary:
          let rows = rowSection ?? DashboardBinaryFrame.rowSection(of: batch)
          rowSection = rows
          queue.offer(.binary(DashboardBinaryFrame.frame(header: text, rows: rows)))
        }
      }
    }
  }

  /// Carries out a control message from a page; returns a notice for that page when it fails.
  package func handle(_ text: String) -> String? {
    guard let message = DashboardControlMessage.parse(text) else {
      return DashboardFrameEncoder.notice("unreadable control message")
    }
    switch message.op {
    case "setFrame":
      guard let name = message.frame, let frame = DashboardReferenceFrame(rawValue: name),
        feed.supportedFrames.contains(name)
      else {
        return DashboardFrameEncoder.notice("the source does not support that reference frame")
      }
      // Told to the pages at once; the restart (which subscribes again) on the source queue.
      let feed = self.feed
      feed.selectFrame(frame.frame)
      sourceQueue.async { feed.applySelectedFrame() }
    case "setRate":
      guard let rate = message.rate, rate.isFinite, rate >= 1, rate <= maximumRate else {
        return DashboardFrameEncoder.notice("the rate must be between 1 and \(Int(maximumRate)) Hz")
      }
      feed.setRate(rate)
    case "startRecording":
      _ = recorder.start(source: feed.source, suggestedName: message.name)
    case "stopRecording":
      _ = recorder.stop()
    case "setScenario":
      guard case .simulator(_, let speed) = feed.specification else {
        return DashboardFrameEncoder.notice(
          "scenarios can be switched only when the source is the simulator")
      }
      guard let requested = message.scenario,
        let name = Scenario.builtInNames.first(where: { $0.lowercased() == requested.lowercased() })
      else { return DashboardFrameEncoder.notice("unknown scenario") }
      do {
        try switchSource(to: .simulator(scenario: name, speed: speed))
      } catch {
        return DashboardFrameEncoder.notice("cannot switch: \(error)")
      }
    default:
      return DashboardFrameEncoder.notice("unknown op")
    }
    let greeting = hello()
    for queue in registry.withLock({ Array($0.clients.values) }) { queue.offer(greeting) }
    return nil
  }

  /// Stops the current feed (and any recording of it) and starts one on `specification`.
  package func switchSource(to specification: SourceSpecification) throws {
    let source = try makeSource(specification)
    if recorder.status.isRecording { _ = recorder.stop() }
    var frame = DashboardReferenceFrame(rawValue: feed.currentFrame)?.frame ?? .xArbitraryZVertical
    // A frame the new source lacks (no magnetometer) falls back to the arbitrary frame.
    if !CMMotionManager(source: source).supportedAttitudeReferenceFrames.contains(frame) {
      frame = .xArbitraryZVertical
    }
    let previous = feed
    let rate = previous.currentRate
    let next = DashboardFeed(
      specification: specification, source: source, frame: frame, rate: rate, recorder: recorder)
    let hasClients = registry.withLock { registry in
      registry.feed = next
      return !registry.isEmpty
    }
    configureFrameRequests(of: next)
    sourceQueue.async { previous.stop() }
    if hasClients { startFeed() }
    logger.info("dashboard source switched to \(specification.displayDescription)")
  }

  /// Stops the current feed and keeps any from starting again (the first step of
  /// ``shutDown()``), from any thread: the feed stops on ``sourceQueue``, so this needs no
  /// thread of Swift concurrency's pool. The server calls it as its task is cancelled: the rest
  /// of its stop waits for a pool thread, and with every one busy the source's subscriptions
  /// (motiond's dashboard: its streams from the daemon) lasted until one was free, after motiond
  /// had given up waiting for its dashboard (5 s).
  package nonisolated func stopSource() {
    let feed = registry.withLock { registry in
      registry.isShutDown = true
      return registry.feed
    }
    sourceQueue.async { feed.stop() }
  }

  /// Stops the frame timer and the feed and closes every client's queue.
  package func shutDown() async {
    stopFrameTimer()
    stopSource()
    await sourceQueueDrained()
    if recorder.status.isRecording { _ = recorder.stop() }
    registry.withLock { registry in
      for queue in registry.clients.values { queue.finish() }
      registry.clients.removeAll()
      for connection in registry.foxgloveClients.values { connection.finish() }
      registry.foxgloveClients.removeAll()
    }
  }

  private var maximumRate: Double {
    min(max(feed.source.supportedSampleRates.upperBound, 1), 1000)
  }

  private func hello() -> String {
    let scenario: String?
    let scenarios: [String]
    if case .simulator(let name, _) = feed.specification {
      scenario = name ?? "tour"
      scenarios = Scenario.builtInNames
    } else {
      scenario = nil
      scenarios = []
    }
    let sensors: [(SensorSet, String)] = [
      (.accelerometer, "accelerometer"), (.gyroscope, "gyroscope"), (.magnetometer, "magnetometer"),
      (.barometer, "barometer"),
    ]
    let available = feed.source.availableSensors
    return DashboardFrameEncoder.hello(
      source: feed.specification.displayDescription,
      sensors: sensors.filter { available.contains($0.0) }.map(\.1),
      frames: feed.supportedFrames, frame: feed.currentFrame, rate: feed.currentRate,
      rates: Self.offeredRates.filter { $0 <= maximumRate }, scenarios: scenarios,
      scenario: scenario,
      hasHistory: hasHistory, recording: recorder.status)
  }
}
