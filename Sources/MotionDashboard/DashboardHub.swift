// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionSensors
import OpenCoreMotion
import SourceComposition

/// The dashboard's state shared by every connection: the current source's feed, the connected
/// clients' queues, and the frame broadcaster.
package actor DashboardHub {
  /// How often a frame goes out, s (about one per animation frame at 30 Hz).
  package static let framePeriod = 0.033
  /// Display rates offered to the page, Hz (capped at the source's highest rate).
  package static let offeredRates: [Double] = [10, 25, 50, 100, 200]

  private var feed: DashboardFeed
  private var clients: [UInt64: DashboardClientQueue] = [:]
  /// Foxglove clients (`foxglove.websocket.v1` on the same endpoint), apart from the pages: they
  /// get the batch's rows per channel rather than the page's frames.
  private var foxgloveClients: [UInt64: FoxgloveConnection] = [:]
  /// Identifies this server run to Foxglove clients (they tell a reconnection from a new server).
  private let sessionID = String(Int(Date().timeIntervalSince1970 * 1000))
  private var nextClient: UInt64 = 0
  private var sequence = 0
  /// Frames dropped for connections that have closed (the open ones count their own).
  private var droppedByClosedClients = 0
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
    self.feed = feed
    self.stopsSourceWhenIdle = stopsSourceWhenIdle
    self.recorder = recorder
    self.hasHistory = hasHistory
    self.makeSource = makeSource
  }

  /// The number of connected clients (pages and Foxglove clients).
  package var clientCount: Int { clients.count + foxgloveClients.count }

  /// Adds a client; it gets the `hello` message first. The first client starts the source, so a
  /// simulation or a recording plays from its beginning when the page opens.
  package func connect() -> (id: UInt64, queue: DashboardClientQueue) {
    feed.start()
    nextClient += 1
    let queue = DashboardClientQueue()
    clients[nextClient] = queue
    queue.offer(hello())
    return (nextClient, queue)
  }

  /// Adds a Foxglove client; like a page, the first client starts the source.
  package func connectFoxglove() -> (id: UInt64, connection: FoxgloveConnection) {
    feed.start()
    nextClient += 1
    let connection = FoxgloveConnection(
      serverName: "OpenCoreMotion dashboard (\(feed.specification.description))",
      sessionID: sessionID)
    foxgloveClients[nextClient] = connection
    return (nextClient, connection)
  }

  package func disconnect(_ id: UInt64) {
    if let connection = foxgloveClients.removeValue(forKey: id) {
      connection.finish()
    } else if let queue = clients.removeValue(forKey: id) {
      droppedByClosedClients += queue.droppedFrames
      queue.finish()
    } else {
      return
    }
    // A recording in progress keeps the source even without a page.
    if clients.isEmpty, foxgloveClients.isEmpty, stopsSourceWhenIdle, !recorder.status.isRecording {
      feed.stop()
      logger.info("last page closed: source unsubscribed until the next one")
    }
  }

  /// Frames dropped since start, over every connection (open or closed).
  package var droppedFrames: Int {
    clients.values.reduce(droppedByClosedClients) { $0 + $1.droppedFrames }
  }

  /// Takes what the feed collected and offers one frame to every client. Without clients the
  /// batch is still taken (and dropped), so it never grows.
  package func broadcast() {
    feed.setRawGyroscopeRequested(
      foxgloveClients.values.contains { $0.isSubscribed(to: .gyroscope) })
    let (batch, state) = feed.take()
    if !batch.isEmpty {
      for connection in foxgloveClients.values { connection.offer(batch) }
    }
    guard !clients.isEmpty, !batch.isEmpty || sequence % 15 == 0 else {
      sequence += 1
      return
    }
    sequence += 1
    let body = DashboardFrameEncoder.dataFrameBody(
      sequence: sequence, batch: batch, state: state, recording: recorder.status)
    let serverDropped = droppedFrames
    for queue in clients.values {
      queue.offer(
        DashboardFrameEncoder.finish(
          body, droppedFrames: queue.droppedFrames, sentFrames: queue.sentFrames,
          serverClients: clients.count,
          serverDroppedFrames: serverDropped))
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
      feed.setFrame(frame.frame)
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
    for queue in clients.values { queue.offer(greeting) }
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
    let rate = feed.currentRate
    feed.stop()
    let next = DashboardFeed(
      specification: specification, source: source, frame: frame, rate: rate, recorder: recorder)
    feed = next
    if !clients.isEmpty || !foxgloveClients.isEmpty { next.start() }
    logger.info("dashboard source switched to \(specification)")
  }

  /// Stops the feed and closes every client's queue.
  package func shutDown() {
    feed.stop()
    if recorder.status.isRecording { _ = recorder.stop() }
    for queue in clients.values { queue.finish() }
    clients.removeAll()
    for connection in foxgloveClients.values { connection.finish() }
    foxgloveClients.removeAll()
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
      source: feed.specification.description,
      sensors: sensors.filter { available.contains($0.0) }.map(\.1),
      frames: feed.supportedFrames, frame: feed.currentFrame, rate: feed.currentRate,
      rates: Self.offeredRates.filter { $0 <= maximumRate }, scenarios: scenarios,
      scenario: scenario,
      hasHistory: hasHistory, recording: recorder.status)
  }
}
