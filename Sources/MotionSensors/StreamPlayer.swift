// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A ``SensorSource`` that plays a ``SampleStream`` (a recording or a simulation), paced by a
/// clock.
///
/// Timestamps are the stream's own: a replay keeps the recording's clock, a simulation its
/// scenario clock. Playback starts with the first subscriber and pauses when the last one leaves;
/// a later subscriber continues where playback paused. At the end of the stream every subscriber
/// receives ``SourceEvent/finished``; a stream error is delivered as ``SourceEvent/failure(_:)``
/// followed by `finished`.
///
/// Sensors no subscriber needs (see ``SensorSource/subscribe(requestedSampleRate:sensors:_:)``)
/// are switched off: their readings are left out of the delivered samples. The stream itself still
/// produces them, because the simulator draws every sensor's noise from one seeded generator (a
/// sensor skipped would change the others' values) and a recording holds them anyway.
///
/// Under wall-clock pacing the player's thread wakes at most once per ``batchInterval`` and then
/// hands out every sample that is due, each with its own timestamp: a sample is late by at most
/// that interval, and the number of samples per second is unchanged. A wake-up costs more than the
/// sample it delivers (a context switch in and out of the player, and one of the consumer's queue
/// thread when it was idle), so waking for two samples at a time instead of one cuts the CPU a
/// 100 Hz stream costs by about a third (docs/Daemon.md has the figures).
///
/// Under wall-clock pacing a jump forward in the stream's time (a gap in a recording, or a
/// timestamp glitch a reader kept) is waited out for at most ``maximumGapWait`` seconds: the
/// sample after it is then delivered (with its own timestamp) and playback continues from it.
/// A gap of 28 hours no longer stalls a replay for 28 hours.
public final class StreamPlayer: SensorSource, Sendable {
  public let name: String
  public let availableSensors: SensorSet
  public let supportedSampleRates: ClosedRange<Double>
  /// The stream's description.
  public let descriptor: StreamDescriptor
  /// The recording's (``StreamDescriptor/sampleTiming``).
  public var sampleTiming: SampleTiming { descriptor.sampleTiming }
  /// How playback is paced.
  public let pacing: Pacing
  /// Under wall-clock pacing, the shortest time between two wake-ups of the player's thread, s:
  /// samples that fall due meanwhile are handed out together when it wakes (each at most this
  /// late). 0 wakes for every sample. Virtual and as-fast-as-possible pacing do not wait at all.
  public let batchInterval: Double

  /// The default ``batchInterval``, s: two samples per wake-up at 100 Hz, one at 50 Hz or less.
  public static let defaultBatchInterval = 0.02

  /// Under wall-clock pacing, the longest time in seconds the player waits between two samples:
  /// a jump in the stream's time longer than this (at the playback speed) is played as a pause of
  /// this length, and playback continues from the sample after the jump. Virtual pacing is not
  /// affected (its clock jumps gaps at once).
  public let maximumGapWait: Double

  /// The default ``maximumGapWait``, s.
  public static let defaultMaximumGapWait = 10.0

  private struct State {
    var stream: any SampleStream
    var pending: MotionSample?
    var isFinished = false
    var isWorkerRunning = false
    /// Playback anchor: stream time `streamOrigin` plays at clock time `clockOrigin`.
    var streamOrigin: Double?
    var clockOrigin = 0.0
    /// Under wall-clock pacing, the clock time at which the last sample was due (for
    /// ``maximumGapWait``); `nil` until a sample has gone out since the last anchoring.
    var lastDue: Double?
    var clockObserver: UInt64?
    /// The sensors each subscriber needs (by its ``SubscriberFanOut`` id).
    var sensorsBySubscriber: [UInt64: SensorSet] = [:]
    /// The union of `sensorsBySubscriber`: the sensors delivered.
    var activeSensors: SensorSet = []

    mutating func updateActiveSensors() {
      activeSensors = sensorsBySubscriber.values.reduce(into: []) { $0.formUnion($1) }
    }
  }

  private let state: Locked<State>
  /// The subscribers: in subscription order, never called after their `cancel()` returns.
  private let subscribers = SubscriberFanOut<SourceEvent>()
  /// Held while the stream is read and its samples handed out, so that one thread at a time moves
  /// the stream forward. Recursive: a handler may cancel its own subscription.
  private let deliveryLock = NSRecursiveLock()

  /// Creates a player over `stream`; `batchInterval` (s, clamped to [0, 1]) is described at
  /// ``batchInterval``, `maximumGapWait` (s, clamped to [0, 3600]; NaN takes the default) at
  /// ``maximumGapWait``.
  public init(
    _ stream: some SampleStream, pacing: Pacing, name: String? = nil,
    batchInterval: Double = StreamPlayer.defaultBatchInterval,
    maximumGapWait: Double = StreamPlayer.defaultMaximumGapWait
  ) {
    let descriptor = stream.descriptor
    self.descriptor = descriptor
    self.name = name ?? descriptor.name
    self.availableSensors = descriptor.sensors
    // A rate that is not a positive number (a library user's descriptor: the readers check
    // theirs) would make the range below trap.
    let rate = descriptor.nominalSampleRate.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? 100
    self.supportedSampleRates = Swift.min(1, rate)...rate
    self.pacing = pacing
    self.batchInterval = batchInterval.isFinite ? Swift.min(Swift.max(batchInterval, 0), 1) : 0
    self.maximumGapWait =
      maximumGapWait.isNaN
      ? Self.defaultMaximumGapWait : Swift.min(Swift.max(maximumGapWait, 0), 3600)
    self.state = Locked(State(stream: stream))
  }

  public func subscribe(
    requestedSampleRate: Double, _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    subscribe(requestedSampleRate: requestedSampleRate, sensors: availableSensors, handler)
  }

  public func subscribe(
    requestedSampleRate: Double, sensors: SensorSet,
    _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    // Added under the state lock, so that `finish` (which sets `isFinished` first) either sees
    // this subscriber or this call sees `isFinished`.
    let id = state.withLock { s -> UInt64? in
      guard !s.isFinished else { return nil }
      let id = subscribers.add(handler)
      s.sensorsBySubscriber[id] = sensors.intersection(availableSensors)
      s.updateActiveSensors()
      return id
    }
    guard let id else {
      handler(.finished)
      return SourceSubscription(onCancel: {})
    }
    startIfNeeded()
    return SourceSubscription { [weak self] in self?.unsubscribe(id) }
  }

  /// The sensors currently delivered: those some subscriber needs (empty without subscribers).
  public var activeSensors: SensorSet { state.withLock { $0.activeSensors } }

  private func unsubscribe(_ id: UInt64) {
    deliveryLock.lock()
    defer { deliveryLock.unlock() }
    subscribers.remove(id)
    let observerToRemove = state.withLock { s -> UInt64? in
      s.sensorsBySubscriber.removeValue(forKey: id)
      s.updateActiveSensors()
      // Asked under this lock, where subscribers are added: one that arrived since the removal
      // keeps the clock observer (its `startIfNeeded` found it there).
      guard subscribers.isEmpty else { return nil }
      s.streamOrigin = nil
      defer { s.clockObserver = nil }
      return s.clockObserver
    }
    if let token = observerToRemove, case .virtual(let clock, _) = pacing {
      clock.removeObserver(token)
    }
  }

  private func startIfNeeded() {
    switch pacing {
    case .virtual(let clock, let speed):
      // Registered under the state lock, so that two first subscribers register one observer and
      // a last subscriber leaving meanwhile finds it to remove (a leaked observer would go on
      // consuming samples with nobody subscribed). The clock's lock is a leaf: it calls no
      // observer while held.
      state.withLock { s in
        guard s.clockObserver == nil, !s.isFinished, !subscribers.isEmpty else { return }
        s.clockOrigin = clock.now
        s.streamOrigin = nil
        s.clockObserver = clock.addObserver { [weak self] reading in
          self?.catchUp(toClock: reading, speed: speed)
        }
      }
    case .realTime(let speed):
      launchWorker(speed: speed)
    case .asFastAsPossible:
      launchWorker(speed: .infinity)
    }
  }

  // MARK: Virtual pacing

  private func catchUp(toClock reading: Double, speed: Double) {
    deliveryLock.lock()
    defer { deliveryLock.unlock() }
    while let sample = peek() {
      let due = state.withLock { s -> Bool in
        let origin = s.streamOrigin ?? sample.timestamp
        s.streamOrigin = origin
        return (sample.timestamp - origin) <= (reading - s.clockOrigin) * speed + 1e-9
      }
      guard due else { return }
      deliverPending()
      if subscribers.isEmpty { return }
    }
  }

  // MARK: Wall-clock pacing

  private func launchWorker(speed: Double) {
    let shouldLaunch = state.withLock { s -> Bool in
      guard !s.isWorkerRunning else { return false }
      s.isWorkerRunning = true
      s.streamOrigin = nil
      return true
    }
    guard shouldLaunch else { return }
    let thread = Thread { [self] in runWorker(speed: speed) }
    thread.name = "OpenCoreMotion.StreamPlayer(\(name))"
    thread.qualityOfService = .userInteractive
    thread.start()
  }

  private func runWorker(speed: Double) {
    // The clock reading before which the worker does not wake again, and whether it has slept since
    // it last handed out a sample (the first sample after a sleep starts a new batch).
    var batchEnd = -Double.infinity
    var hasSlept = true
    while true {
      let shouldStop = state.withLock { s -> Bool in
        if subscribers.isEmpty || s.isFinished {
          s.isWorkerRunning = false
          return true
        }
        return false
      }
      if shouldStop { return }
      deliveryLock.lock()
      guard let sample = peek() else {
        deliveryLock.unlock()
        continue  // peek() finished the stream; the loop exits above.
      }
      if speed.isFinite {
        let now = ProcessInfo.processInfo.systemUptime
        let due = state.withLock { s -> Double in
          if s.streamOrigin == nil {
            s.streamOrigin = sample.timestamp
            s.clockOrigin = now
            s.lastDue = nil
          }
          let due = s.clockOrigin + (sample.timestamp - s.streamOrigin!) / speed
          // A jump longer than the longest wait: re-anchor so that this sample is due that long
          // after the previous one (once; afterwards `due - lastDue` equals the wait).
          if let last = s.lastDue, due - last > maximumGapWait {
            s.streamOrigin = sample.timestamp
            s.clockOrigin = last + maximumGapWait
            return s.clockOrigin
          }
          return due
        }
        // A sample that is due goes out now; one that is not waits for its time, and at least
        // until the batch interval since the last wake-up has passed.
        let wait = due > now ? Swift.max(due, batchEnd) - now : 0
        if wait > 0 {
          deliveryLock.unlock()
          // Sleep in short slices so that a stop is noticed promptly.
          Thread.sleep(forTimeInterval: Swift.min(wait, 0.02))
          hasSlept = true
          continue
        }
        if hasSlept {
          batchEnd = now + batchInterval
          hasSlept = false
        }
        state.withLock { $0.lastDue = due }
      }
      deliverPending()
      deliveryLock.unlock()
    }
  }

  // MARK: Stream access (called with `deliveryLock` held)

  /// Runs `body` holding the delivery lock (for extensions that read the stream).
  func withDeliveryLock<Result>(_ body: () -> Result) -> Result {
    deliveryLock.lock()
    defer { deliveryLock.unlock() }
    return body()
  }

  /// The next sample without consuming it (see ``peek()``); call with the delivery lock held.
  func peekNextSample() -> MotionSample? { peek() }

  /// The clock reading at which `sample` is due at `speed`, anchoring playback to it if it is the
  /// first.
  func dueClockTime(of sample: MotionSample, speed: Double) -> Double {
    state.withLock { s -> Double in
      let origin = s.streamOrigin ?? sample.timestamp
      s.streamOrigin = origin
      return s.clockOrigin + (sample.timestamp - origin) / speed
    }
  }

  /// The next sample without consuming it; finishes the stream (and tells subscribers) at its end
  /// or on an error.
  private func peek() -> MotionSample? {
    let outcome = state.withLock { s -> Result<MotionSample?, Error> in
      if let pending = s.pending { return .success(pending) }
      if s.isFinished { return .success(nil) }
      do {
        s.pending = try s.stream.next()
        return .success(s.pending)
      } catch {
        return .failure(error)
      }
    }
    switch outcome {
    case .success(let sample?):
      return sample
    case .success(nil):
      finish(failure: nil)
      return nil
    case .failure(let error):
      finish(failure: SourceFailure(.malformedData, "\(name): \(error)"))
      return nil
    }
  }

  private func deliverPending() {
    let (sample, sensors) = state.withLock { s -> (MotionSample?, SensorSet) in
      defer { s.pending = nil }
      return (s.pending, s.activeSensors)
    }
    guard let sample else { return }
    // Switched-off sensors are left out (the common case, everything needed, copies nothing).
    subscribers.deliver(.sample(sensors == availableSensors ? sample : sample.keeping(sensors)))
  }

  private func finish(failure: SourceFailure?) {
    let isFirst = state.withLock { s -> Bool in
      defer { s.isFinished = true }
      return !s.isFinished
    }
    guard isFirst else { return }
    state.withLock { s in
      s.sensorsBySubscriber = [:]
      s.updateActiveSensors()
    }
    for handler in subscribers.removeAll() {
      if let failure { handler(.failure(failure)) }
      handler(.finished)
    }
  }
}
