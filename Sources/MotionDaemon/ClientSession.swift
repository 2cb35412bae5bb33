// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionDaemonProtocol
import MotionFusion
import MotionSensors
import SwiftProtobuf

/// One connected client: a reader thread that parses its requests and a writer thread that drains
/// its bounded outgoing queue.
///
/// Stream messages (samples, live updates) go through a ring of at most ``streamCapacity``
/// messages: when the client does not read, the oldest are dropped and counted, so the source's
/// delivery thread never waits for a client. Replies go through their own queue and are never
/// dropped (the protocol promises every request an answer), so they are bounded by flow control
/// instead: while the client's unsent replies exceed ``Limits/replyBytes`` its reader stops
/// reading requests (the kernel's socket buffer then stops the client's writes), and long answers
/// are produced chunk by chunk as the client drains them (``sendWhenRoom(_:)``). An authorization
/// change another client causes takes one slot that holds only the latest change
/// (``notifyAuthorizationChange()``), so no client's requests can grow this client's queue. A live
/// activity change, which the next one does not make up for as a pedometer or altitude update's
/// cumulative values do, is not put in the ring either: each subscription has one slot holding
/// its latest change not yet written, never dropped for other messages. Only source events (and
/// notices of a change in the source's sensors, which come with one) can add beyond the limit; a
/// client whose queue still grows past ``Limits/hardReplyBytes`` is disconnected.
///
/// A frame must be completed within ``Limits/frameDeadline`` of the previous frame's end once a
/// byte of it has arrived: a peer that stops half-way cannot hold a 16 MiB buffer for ever. An idle
/// connection (no partial frame) has no deadline: a client may wait for its streams for days.
final class ClientSession: @unchecked Sendable {
  // Sendable because all mutable state is in `state`, guarded by `condition`'s lock.
  private struct State {
    var stream = FIFOQueue<(subscription: UInt64, frame: [UInt8])>()
    var replies = FIFOQueue<[UInt8]>()
    /// Bytes of replies queued or being written (decreased when the write has completed).
    var replyBytes = 0
    var subscriptions: [UInt64: ClientSubscription] = [:]
    /// Each subscription's latest live activity change not yet written, as a frame. Outside the
    /// ring: an activity change dropped there was reported nowhere (a `LiveUpdate` has no
    /// `dropped_before`), and the app showed the activity before it until the next change, which
    /// may be hours later. One slot per subscription keeps it bounded (at most
    /// ``Limits/subscriptions`` small frames): a change not yet written when the next one comes
    /// is replaced by it and counted in `dropped`, since the latest one is the activity in force.
    var pendingActivity: [UInt64: [UInt8]] = [:]
    /// Messages the client will not get: dropped from the ring, or activity changes replaced by
    /// a later one before they were written.
    var dropped: UInt64 = 0
    var isClosed = false
    /// The client shut down its sending side (end of stream): no request comes any more, and the
    /// session ends once the replies to the ones it sent are written.
    var peerFinished = false
    var name = "unnamed"
    /// An authorization change not yet written. One flag, not a queued message: a client toggling
    /// privacy in a loop must not grow every other client's queue, and the message written is
    /// built from the authorization at the moment of writing, so it is never stale.
    var authorizationChanged = false
    /// Authorization changes announced so far: a request answered with the authorization while
    /// one happened may carry the value from before it.
    var authorizationChanges: UInt64 = 0
    /// Replies queued so far; those taken by the writer are this less the ones still in
    /// `replies`. The notice goes out once the replies queued before the latest change
    /// (``noticeAfterReplies``) are taken, so an answer computed before the change cannot arrive
    /// after it and undo it in the client's cache.
    var repliesQueued: UInt64 = 0
    var noticeAfterReplies: UInt64 = 0
    /// Whether the client has had its first reply: the answer to its Hello, for a client that
    /// says Hello first. A notice of the source's sensors before it would reach the client in
    /// its handshake, which takes nothing else; the latest one waits in
    /// `sensorsNoticeBeforeHello` and follows the answer, which may have been computed before
    /// the change. (Any first reply, not only a Hello's: the daemon serves a client that says no
    /// Hello, and its notices waited for ever.)
    var isGreeted = false
    var sensorsNoticeBeforeHello: [UInt8]?
  }

  let id: UInt64
  let processID: Int32
  private let socket: UnixSocket
  private let condition = NSCondition()
  private var state = State()
  private let streamCapacity: Int
  private let limits: Limits
  private let logger: Logger
  /// Called once when the session ends (peer gone, protocol error, daemon stopping).
  private let onClose: @Sendable (ClientSession) -> Void
  /// Handles one request; returns the replies to send (possibly several, for chunked answers).
  private let onRequest: @Sendable (ClientSession, WireClientMessage) -> [WireServerMessage]
  /// The unrequested message telling the client the current authorization (`request_id` 0);
  /// `nil` once the daemon is gone.
  private let authorizationNotice: @Sendable () -> WireServerMessage?

  init(
    id: UInt64, socket: UnixSocket, streamCapacity: Int, limits: Limits, logger: Logger,
    onRequest: @escaping @Sendable (ClientSession, WireClientMessage) -> [WireServerMessage],
    authorizationNotice: @escaping @Sendable () -> WireServerMessage?,
    onClose: @escaping @Sendable (ClientSession) -> Void
  ) {
    self.id = id
    self.socket = socket
    self.processID = socket.peerProcessID
    self.streamCapacity = max(1, streamCapacity)
    self.limits = limits
    self.logger = logger
    self.onRequest = onRequest
    self.authorizationNotice = authorizationNotice
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
        state.stream.count + state.pendingActivity.count
      )
    }
  }

  /// The highest raw-sample rate any of this client's subscriptions wants, Hz (0: none).
  var demandedRate: Double {
    condition.withLock {
      state.subscriptions.values.filter { !$0.sensors.isEmpty }.map(\.rate).max() ?? 0
    }
  }

  /// Whether any of this client's subscriptions wants live pedometer, activity or altitude
  /// updates.
  var demandsLive: Bool {
    condition.withLock {
      state.subscriptions.values.contains { $0.pedometer || $0.activity || $0.altitude }
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

  /// What ``addSubscription(_:daemonIsFull:)`` did.
  enum SubscriptionOutcome: Equatable {
    case added
    /// The client already has ``Limits/subscriptions`` others.
    case connectionIsFull
    /// The daemon's subscriptions of all clients together are at their limit.
    case daemonIsFull
  }

  /// Adds (or replaces, for a reused `request_id`) a subscription, unless the client already has
  /// ``Limits/subscriptions`` others or, for a new one, `daemonIsFull`: every subscription costs
  /// work on the source's delivery thread, which all clients share. A replacement is always
  /// accepted (it adds no work).
  func addSubscription(
    _ subscription: ClientSubscription, daemonIsFull: Bool
  ) -> SubscriptionOutcome {
    condition.withLock {
      if state.subscriptions[subscription.id] == nil {
        if state.subscriptions.count >= limits.subscriptions { return .connectionIsFull }
        if daemonIsFull { return .daemonIsFull }
      }
      state.subscriptions[subscription.id] = subscription
      // A replacement that no longer wants activity changes must not get the old one's.
      if !subscription.activity { state.pendingActivity[subscription.id] = nil }
      return .added
    }
  }

  /// The client's subscriptions.
  var subscriptionCount: Int { condition.withLock { state.subscriptions.count } }

  @discardableResult
  func removeSubscription(_ id: UInt64) -> Bool {
    condition.withLock {
      state.pendingActivity[id] = nil
      return state.subscriptions.removeValue(forKey: id) != nil
    }
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
    if queuedAny { condition.broadcast() }
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
    if queuedAny { condition.broadcast() }
  }

  /// Queues a live pedometer/activity/altitude update for the subscriptions that want it.
  ///
  /// Pedometer and altitude updates go through the ring: each carries cumulative values, so the
  /// next one makes up for one dropped. An activity change does not: it goes to the
  /// subscription's own slot (`State.pendingActivity`), replacing a change not yet written.
  func deliver(_ update: LiveUpdate) {
    condition.lock()
    defer { condition.unlock() }
    guard !state.isClosed else { return }
    var queuedAny = false
    for subscription in state.subscriptions.values where update.isWanted(by: subscription) {
      var message = WireServerMessage()
      message.requestID = subscription.id
      message.live = update.wire
      let frame = Wire.frame(message)
      if update.kind == .activity {
        if state.pendingActivity.updateValue(frame, forKey: subscription.id) != nil {
          state.dropped += 1
        }
      } else {
        enqueueStreamLocked(subscription.id, frame)
      }
      queuedAny = true
    }
    if queuedAny { condition.broadcast() }
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
      appendReplyLocked(Wire.frame(message))
    }
    queuedRareRepliesLocked()
  }

  /// Tells the client, subscribed or not, that the sensors the source offers changed (`notice`
  /// has `request_id` 0). Queued with the replies, like source events: never dropped, and written
  /// before the source event that announces the change, which is queued after it. Before the
  /// client's first reply (its Hello's answer) it waits, replacing any earlier one, and follows
  /// that reply.
  func deliver(sourceSensors notice: WireServerMessage) {
    condition.lock()
    defer { condition.unlock() }
    guard !state.isClosed else { return }
    guard state.isGreeted else {
      state.sensorsNoticeBeforeHello = Wire.frame(notice)
      return
    }
    appendReplyLocked(Wire.frame(notice))
    queuedRareRepliesLocked()
  }

  /// Wakes the writer after a source event or notice was queued outside any request's flow
  /// control, and disconnects a client whose unread replies have passed the hard limit.
  private func queuedRareRepliesLocked() {
    let overflow = state.replyBytes > limits.hardReplyBytes
    condition.broadcast()
    if overflow {
      // Called under the lock: close from another thread, which takes it again.
      Thread { [self] in closeForUnreadReplies() }.start()
    }
  }

  /// Whether `message` tells the client the authorization (its cache takes the last one read).
  private static func carriesAuthorization(_ message: WireServerMessage) -> Bool {
    switch message.body {
    case .authorization, .hello: return true
    default: return false
    }
  }

  /// Tells the client that the authorization changed, with the value current when the message is
  /// written. Changes made before the client has read the previous one are merged into it: a
  /// client that reads nothing holds one pending notice, however often others change privacy.
  func notifyAuthorizationChange() {
    condition.withLock {
      guard !state.isClosed else { return }
      state.authorizationChanged = true
      state.authorizationChanges &+= 1
      state.noticeAfterReplies = state.repliesQueued
      condition.broadcast()
    }
  }

  private func appendReplyLocked(_ frame: [UInt8]) {
    state.repliesQueued &+= 1
    state.replies.append(frame)
    state.replyBytes += frame.count
  }

  private func closeForUnreadReplies() {
    logger.warning(
      "client \(id) does not read its replies (over \(limits.hardReplyBytes) bytes queued); disconnecting it"
    )
    close()
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

  /// Queues the replies to one request (never dropped). They are bounded by the reader waiting for
  /// room before it reads the next request; should one request's replies alone pass
  /// ``Limits/hardReplyBytes``, the client is disconnected all the same.
  ///
  /// `changesBefore` is ``State/authorizationChanges`` when the request was taken: when a change
  /// was announced since and a reply carries the authorization (a handshake, a query, a privacy
  /// change's own notice), that reply may hold the value from before, so a fresh notice follows it.
  private func queueReplies(_ messages: [WireServerMessage], changesBefore: UInt64) {
    guard !messages.isEmpty else { return }
    condition.lock()
    var overflow = false
    if !state.isClosed {
      for message in messages { appendAnswerLocked(Wire.frame(message)) }
      if state.authorizationChanges != changesBefore,
        messages.contains(where: Self.carriesAuthorization)
      {
        state.authorizationChanged = true
        state.noticeAfterReplies = state.repliesQueued
      }
      overflow = state.replyBytes > limits.hardReplyBytes
      condition.broadcast()
    }
    condition.unlock()
    if overflow { closeForUnreadReplies() }
  }

  /// Queues a reply to one of the client's requests; the first one (a Hello's answer, for a
  /// client that says Hello first) is followed by the notice of the source's sensors that waited
  /// for it (see ``State/isGreeted``).
  private func appendAnswerLocked(_ frame: [UInt8]) {
    appendReplyLocked(frame)
    guard !state.isGreeted else { return }
    state.isGreeted = true
    if let notice = state.sensorsNoticeBeforeHello {
      appendReplyLocked(notice)
      state.sensorsNoticeBeforeHello = nil
    }
  }

  /// Queues `message` once the client's unsent replies are within ``Limits/replyBytes`` (waiting
  /// for the writer to drain them); `false` when the session closed meanwhile. For answers
  /// produced piece by piece on the reader thread: the next piece is made only when there is room
  /// for it.
  func sendWhenRoom(_ message: WireServerMessage) -> Bool {
    guard waitForReplyRoom() else { return false }
    let frame = Wire.frame(message)
    return condition.withLock {
      guard !state.isClosed else { return false }
      appendAnswerLocked(frame)
      condition.broadcast()
      return true
    }
  }

  /// Whether the session still serves its client (a long answer stops early when not).
  var isOpen: Bool { condition.withLock { !state.isClosed } }

  /// Waits while the unsent replies exceed ``Limits/replyBytes``; `false` once the session closed.
  private func waitForReplyRoom() -> Bool {
    condition.withLock {
      while !state.isClosed && state.replyBytes > limits.replyBytes { condition.wait() }
      return !state.isClosed
    }
  }

  // MARK: Threads

  private func readLoop() {
    var decoder = FrameDecoder()
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    // When the current partial frame's deadline started (nil: no partial frame, no deadline).
    var partialSince: Double?
    var hasReceiveTimeout = false
    var peerFinished = false
    reading: while true {
      if decoder.bufferedByteCount > 0 {
        let now = ProcessInfo.processInfo.systemUptime
        let since = partialSince ?? now
        partialSince = since
        let remaining = since + limits.frameDeadline - now
        if remaining <= 0 {
          logger.warning(
            "client \(id): a frame was not completed within \(limits.frameDeadline) s (\(decoder.bufferedByteCount) bytes of it received); disconnecting it"
          )
          break reading
        }
        socket.setReceiveTimeout(seconds: max(0.01, remaining))
        hasReceiveTimeout = true
      } else if hasReceiveTimeout {
        socket.setReceiveTimeout(seconds: 0)
        hasReceiveTimeout = false
        partialSince = nil
      }
      let count: Int
      do { count = try socket.read(into: &buffer) } catch let error as UnixSocket.SocketError
        where error.code == EAGAIN || error.code == EWOULDBLOCK
      {
        continue  // the receive timeout: the deadline is checked above
      } catch { break }
      if count == 0 {
        peerFinished = true
        break
      }
      decoder.append(buffer[0..<count])
      var completedFrame = false
      while true {
        let frame: ArraySlice<UInt8>?
        do { frame = try decoder.nextFrame() } catch {
          logger.warning("client \(id): malformed frame (\(error)); disconnecting it")
          break reading
        }
        guard let frame else { break }
        completedFrame = true
        let request: WireClientMessage
        do { request = try WireClientMessage(serializedBytes: Array(frame)) } catch {
          logger.warning("client \(id): undecodable request (\(error)); disconnecting it")
          break reading
        }
        // Backpressure: no new request while the replies to earlier ones are not drained.
        guard waitForReplyRoom() else { break reading }
        let changesBefore = condition.withLock { state.authorizationChanges }
        queueReplies(onRequest(self, request), changesBefore: changesBefore)
      }
      // The next frame's deadline starts now; frames already handled release the buffer.
      if completedFrame { partialSince = nil }
      decoder.compact()
    }
    if peerFinished {
      // A client may shut down its sending side after its last request (`shutdown(SHUT_WR)`)
      // and still read the answers: the writer sends what is queued, then ends the session.
      logger.debug("client \(id) finished sending; closing once its replies are written")
      condition.withLock {
        state.peerFinished = true
        condition.broadcast()
      }
    } else {
      close()
    }
  }

  private func writeLoop() {
    var output: [UInt8] = []
    while true {
      condition.lock()
      while !state.isClosed && state.stream.isEmpty && state.replies.isEmpty
        && state.pendingActivity.isEmpty && !state.peerFinished && !state.authorizationChanged
      {
        condition.wait()
      }
      if state.isClosed {
        condition.unlock()
        return
      }
      if state.peerFinished && state.replies.isEmpty {
        // Every reply has been written (stream messages go on while there are replies, not
        // beyond them).
        condition.unlock()
        close()
        return
      }
      output.removeAll(keepingCapacity: output.capacity <= Self.retainedOutputCapacity)
      // Replies in batches of about `writeBatchBytes`, so they are counted as unsent until written
      // without gathering the whole queue in a second buffer.
      var replyBytes = 0
      while replyBytes < Self.writeBatchBytes, let reply = state.replies.popFirst() {
        output.append(contentsOf: reply)
        replyBytes += reply.count
      }
      // After the replies queued before the latest change: an authorization answer still waiting
      // must not arrive after the newer notice and undo it in the client's cache.
      let repliesTaken = state.repliesQueued &- UInt64(state.replies.count)
      let writesNotice = state.authorizationChanged && repliesTaken >= state.noticeAfterReplies
      if writesNotice { state.authorizationChanged = false }
      while let item = state.stream.popFirst() { output.append(contentsOf: item.frame) }
      // Each subscription's latest activity change (their order between subscriptions does not
      // matter: each client stream reads only its own).
      for frame in state.pendingActivity.values { output.append(contentsOf: frame) }
      state.pendingActivity.removeAll(keepingCapacity: true)
      condition.unlock()
      // Built outside the lock (it reads the history's condition under the history's own lock);
      // a change made from here on sets the flag again and is written next time.
      if writesNotice, let notice = authorizationNotice() {
        output.append(contentsOf: Wire.frame(notice))
      }
      if output.isEmpty { continue }
      do { try socket.write(output) } catch {
        close()
        return
      }
      if replyBytes > 0 {
        condition.withLock {
          state.replyBytes -= replyBytes
          condition.broadcast()
        }
      }
    }
  }

  /// Replies gathered into one `write`, bytes (at least one whole reply).
  private static let writeBatchBytes = 256 << 10
  /// The writer's output buffer is released after a write larger than this.
  private static let retainedOutputCapacity = 1 << 20

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
