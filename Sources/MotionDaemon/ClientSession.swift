// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionDaemonProtocol
import MotionFusion
import MotionSensors

/// One connected client: a reader thread that parses its requests and a writer thread that drains
/// its bounded outgoing queue.
///
/// Stream messages (samples, live updates) go through a ring of at most ``streamCapacity``
/// messages: when the client does not read, the oldest are dropped and counted, so the source's
/// delivery thread never waits for a client. Replies go through their own queue and are never
/// dropped; a client that floods requests without reading replies is disconnected.
final class ClientSession: @unchecked Sendable {
  // Sendable because all mutable state is in `state`, guarded by `condition`'s lock.
  private struct State {
    var stream = FIFOQueue<(subscription: UInt64, frame: [UInt8])>()
    var replies = FIFOQueue<[UInt8]>()
    var subscriptions: [UInt64: ClientSubscription] = [:]
    var dropped: UInt64 = 0
    var isClosed = false
    var name = "unnamed"
  }

  let id: UInt64
  let processID: Int32
  private let socket: UnixSocket
  private let condition = NSCondition()
  private var state = State()
  private let streamCapacity: Int
  private let maximumQueuedReplies = 4096
  private let logger: Logger
  /// Called once when the session ends (peer gone, protocol error, daemon stopping).
  private let onClose: @Sendable (ClientSession) -> Void
  /// Handles one request; returns the replies to send (possibly several, for chunked answers).
  private let onRequest: @Sendable (ClientSession, WireClientMessage) -> [WireServerMessage]

  init(
    id: UInt64, socket: UnixSocket, streamCapacity: Int, logger: Logger,
    onRequest: @escaping @Sendable (ClientSession, WireClientMessage) -> [WireServerMessage],
    onClose: @escaping @Sendable (ClientSession) -> Void
  ) {
    self.id = id
    self.socket = socket
    self.processID = socket.peerProcessID
    self.streamCapacity = max(1, streamCapacity)
    self.logger = logger
    self.onRequest = onRequest
    self.onClose = onClose
  }

  /// Starts the reader and writer threads.
  func start() {
    let reader = Thread { [self] in readLoop() }
    reader.name = "motiond-client-\(id)-read"
    reader.start()
    let writer = Thread { [self] in writeLoop() }
    writer.name = "motiond-client-\(id)-write"
    writer.start()
  }

  var name: String {
    get { condition.withLock { state.name } }
    set { condition.withLock { state.name = newValue } }
  }

  /// The subscriptions, dropped count and queue length, for `status`.
  var snapshot: (name: String, subscriptions: [ClientSubscription], dropped: UInt64, queued: Int) {
    condition.withLock {
      (
        state.name, state.subscriptions.values.sorted { $0.id < $1.id }, state.dropped,
        state.stream.count
      )
    }
  }

  /// The highest raw-sample rate any of this client's subscriptions wants, Hz (0: none).
  var demandedRate: Double {
    condition.withLock {
      state.subscriptions.values.filter { !$0.sensors.isEmpty }.map(\.rate).max() ?? 0
    }
  }

  /// Whether any of this client's subscriptions wants the daemon's fused motion.
  var demandsFusedMotion: Bool {
    condition.withLock { state.subscriptions.values.contains { $0.readsFusion } }
  }

  /// The raw sensors this client's subscriptions want (empty: none).
  var demandedSensors: SensorSet {
    condition.withLock {
      state.subscriptions.values.reduce(into: SensorSet()) { $0.formUnion($1.sensors) }
    }
  }

  func addSubscription(_ subscription: ClientSubscription) {
    condition.withLock { state.subscriptions[subscription.id] = subscription }
  }

  @discardableResult
  func removeSubscription(_ id: UInt64) -> Bool {
    condition.withLock { state.subscriptions.removeValue(forKey: id) != nil }
  }

  // MARK: Delivery (called on the source's delivery thread; never blocks on the socket)

  /// Queues `sample` for every subscription that is due for it.
  func deliver(_ sample: MotionSample, receivedBootNanoseconds: UInt64) {
    condition.lock()
    defer { condition.unlock() }
    guard !state.isClosed, !state.subscriptions.isEmpty else { return }
    let available = sampleSensors(sample)
    var queuedAny = false
    for key in state.subscriptions.keys {
      guard var subscription = state.subscriptions[key], !subscription.sensors.isEmpty,
        !subscription.sensors.isDisjoint(with: available)
      else { continue }
      let isDue = subscription.decimator.accept(sample.timestamp, interval: subscription.interval)
      // Written back due or not: the decimator judges earliness by the source's own period.
      state.subscriptions[key] = subscription
      guard isDue else { continue }
      let wireSample = Wire.sample(
        sample, sensors: subscription.sensors, receivedBootNanoseconds: receivedBootNanoseconds)
      queueStreamMessageLocked(key) { message, droppedBefore in
        var batch = Opencoremotion_Daemon_V1_SampleBatch()
        batch.samples = [wireSample]
        batch.droppedBefore = droppedBefore
        message.samples = batch
      }
      queuedAny = true
    }
    if queuedAny { condition.signal() }
  }

  /// Queues one estimate of the daemon's fusion for every subscription that wants fused motion and
  /// is due for it, and device motion in its frame for every subscription that wants that.
  func deliver(_ estimate: DeviceMotionEstimate, receivedBootNanoseconds: UInt64) {
    condition.lock()
    defer { condition.unlock() }
    guard !state.isClosed, !state.subscriptions.isEmpty else { return }
    var queuedAny = false
    for key in state.subscriptions.keys {
      guard var subscription = state.subscriptions[key], subscription.readsFusion else { continue }
      // Every decimator sees every estimate, and the subscription is written back before anything
      // is queued (queueing may count a drop against it).
      let interval = subscription.interval
      let motion = subscription.deviceMotion?.message(
        for: estimate, interval: interval, receivedBootNanoseconds: receivedBootNanoseconds)
      let fusedIsDue =
        subscription.fusedMotion
        && subscription.fusedMotionDecimator.accept(estimate.timestamp, interval: interval)
      state.subscriptions[key] = subscription
      if let motion {
        queueStreamMessageLocked(key) { message, droppedBefore in
          var batch = Opencoremotion_Daemon_V1_DeviceMotionBatch()
          batch.motions = [motion]
          batch.droppedBefore = droppedBefore
          message.deviceMotion = batch
        }
        queuedAny = true
      }
      if fusedIsDue {
        let fused = Wire.fusedMotion(estimate, receivedBootNanoseconds: receivedBootNanoseconds)
        queueStreamMessageLocked(key) { message, droppedBefore in
          var batch = Opencoremotion_Daemon_V1_FusedMotionBatch()
          batch.estimates = [fused]
          batch.droppedBefore = droppedBefore
          message.fusedMotion = batch
        }
        queuedAny = true
      }
    }
    if queuedAny { condition.signal() }
  }

  /// Queues a live pedometer/activity/altitude update for the subscriptions that want it.
  func deliver(_ update: LiveUpdate) {
    condition.lock()
    defer { condition.unlock() }
    guard !state.isClosed else { return }
    var queuedAny = false
    for subscription in state.subscriptions.values where update.isWanted(by: subscription) {
      var message = WireServerMessage()
      message.requestID = subscription.id
      message.live = update.wire
      enqueueStreamLocked(subscription.id, Wire.frame(message))
      queuedAny = true
    }
    if queuedAny { condition.signal() }
  }

  /// Tells every subscription that the source failed or finished.
  func deliver(sourceEvent: Opencoremotion_Daemon_V1_SourceEvent) {
    condition.lock()
    defer { condition.unlock() }
    guard !state.isClosed else { return }
    for subscription in state.subscriptions.values {
      var message = WireServerMessage()
      message.requestID = subscription.id
      message.sourceEvent = sourceEvent
      // Source events are rare and must not be lost behind samples: they travel as replies.
      state.replies.append(Wire.frame(message))
    }
    condition.signal()
  }

  /// Queues one stream message of subscription `key`: `fill` sets its payload and gets the
  /// number of this subscription's messages dropped since its last one (then reset).
  private func queueStreamMessageLocked(
    _ key: UInt64, fill: (inout WireServerMessage, _ droppedBefore: UInt64) -> Void
  ) {
    let droppedBefore = state.subscriptions[key]?.unreportedDrops ?? 0
    state.subscriptions[key]?.unreportedDrops = 0
    var message = WireServerMessage()
    message.requestID = key
    fill(&message, droppedBefore)
    enqueueStreamLocked(key, Wire.frame(message))
  }

  private func enqueueStreamLocked(_ subscription: UInt64, _ frame: [UInt8]) {
    if state.stream.count >= streamCapacity, let oldest = state.stream.popFirst() {
      state.dropped += 1
      state.subscriptions[oldest.subscription]?.unreportedDrops += 1
    }
    state.stream.append((subscription, frame))
  }

  private func sampleSensors(_ sample: MotionSample) -> SensorSet {
    var set: SensorSet = []
    if sample.accelerometer != nil { set.insert(.accelerometer) }
    if sample.gyroscope != nil { set.insert(.gyroscope) }
    if sample.magnetometer != nil { set.insert(.magnetometer) }
    if sample.pressure != nil { set.insert(.barometer) }
    if sample.temperature != nil { set.insert(.thermometer) }
    return set
  }

  /// Queues replies to a request (never dropped).
  func send(_ messages: [WireServerMessage]) {
    guard !messages.isEmpty else { return }
    condition.lock()
    var overflow = false
    if !state.isClosed {
      for message in messages { state.replies.append(Wire.frame(message)) }
      overflow = state.replies.count > maximumQueuedReplies
      condition.signal()
    }
    condition.unlock()
    if overflow {
      logger.warning("client \(id) does not read its replies; disconnecting it")
      close()
    }
  }

  // MARK: Threads

  private func readLoop() {
    var decoder = FrameDecoder()
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    reading: while true {
      let count: Int
      do { count = try socket.read(into: &buffer) } catch { break }
      if count == 0 { break }
      decoder.append(buffer[0..<count])
      while true {
        let frame: ArraySlice<UInt8>?
        do { frame = try decoder.nextFrame() } catch {
          logger.warning("client \(id): malformed frame (\(error)); disconnecting it")
          break reading
        }
        guard let frame else { break }
        let request: WireClientMessage
        do { request = try WireClientMessage(serializedBytes: Array(frame)) } catch {
          logger.warning("client \(id): undecodable request (\(error)); disconnecting it")
          break reading
        }
        send(onRequest(self, request))
      }
    }
    close()
  }

  private func writeLoop() {
    var output: [UInt8] = []
    while true {
      condition.lock()
      while !state.isClosed && state.stream.isEmpty && state.replies.isEmpty { condition.wait() }
      if state.isClosed {
        condition.unlock()
        return
      }
      output.removeAll(keepingCapacity: true)
      while let reply = state.replies.popFirst() { output.append(contentsOf: reply) }
      while let item = state.stream.popFirst() { output.append(contentsOf: item.frame) }
      condition.unlock()
      do { try socket.write(output) } catch {
        close()
        return
      }
    }
  }

  /// Ends the session: wakes both threads, closes the socket, tells the owner once.
  func close() {
    let wasOpen = condition.withLock { () -> Bool in
      defer { state.isClosed = true }
      return !state.isClosed
    }
    guard wasOpen else { return }
    condition.broadcast()
    socket.shutdown()
    logger.info("client \(id) (pid \(processID)) disconnected")
    onClose(self)
  }
}
