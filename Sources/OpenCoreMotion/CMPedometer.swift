// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

/// Counts steps and estimates distance, pace, cadence and floors, live and over the recent past.
///
/// `CMPedometer()` reads the process's default source (`COREMOTION_SOURCE`) through the in-process
/// motion history: queries answer from what this process observed since the first pedometer,
/// activity manager, altimeter or sensor recorder was created (Apple answers from 7 days of
/// system-wide history; the OpenCoreMotion daemon will provide that through the same API).
///
/// Every handler runs on the pedometer's own serial background queue, live updates and query
/// results alike. After ``stopUpdates()`` or ``stopEventUpdates()`` returns, no handler of that
/// service runs any more, with one exception: a stop called from inside a handler of another
/// Core Motion service (another object's, or an async sequence's) does not wait for a handler of
/// this service already running on another thread (two handlers stopping each other's service
/// would wait for each other for ever). That call may still finish after the stop returns; no
/// later one starts.
open class CMPedometer: NSObject {
  package let backend: any MotionHistoryBackend
  /// The serial queue every handler of this pedometer runs on.
  package let handlerQueue: OperationQueue
  let updateChannel = UpdateChannel<CMPedometerData>(interval: 0)
  private let eventChannel = UpdateChannel<CMPedometerEvent>(interval: 0)
  /// Where queries are counted, one at a time in the order they were made, off the handler queue:
  /// live updates and events that come meanwhile go out first.
  private let queries = HistoryQueries(label: "OpenCoreMotion.CMPedometer.queries")

  /// The shortest time between two live updates while steps keep coming, s of source time. The
  /// update at a pause, at a floor change and at the end of the source is never held back.
  static let updateSpacing: Double = 1

  /// The longest history kept, s (7 days).
  static let historyLength: TimeInterval = 7 * 86_400

  /// Creates a pedometer for the process's default source.
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: an app's mock subclass can
  /// call `super.init()` or inherit it.
  public override init() {
    backend = MotionHistoryBackends.default
    handlerQueue = Self.makeHandlerQueue()
    super.init()
  }

  /// Creates a pedometer for `source`. An addition to Apple's API (simulations, recordings, tests).
  public convenience init(source: any SensorSource) {
    self.init(backend: InProcessMotionHistory.shared(for: source))
  }

  package init(backend: any MotionHistoryBackend) {
    self.backend = backend
    handlerQueue = Self.makeHandlerQueue()
    super.init()
  }

  /// The serial background queue the handlers run on, as Apple documents.
  private static func makeHandlerQueue() -> OperationQueue {
    let queue = OperationQueue()
    queue.name = "CMPedometer"
    queue.maxConcurrentOperationCount = 1
    return queue
  }

  deinit {
    updateChannel.end()
    eventChannel.end()
  }

  // MARK: Availability

  /// Whether steps can be counted: the default source has an accelerometer.
  open class func isStepCountingAvailable() -> Bool {
    countsSteps(MotionHistoryBackends.defaultSensors)
  }
  /// Whether distance is estimated (from steps and the stride model).
  open class func isDistanceAvailable() -> Bool {
    countsSteps(MotionHistoryBackends.defaultSensors)
  }
  /// Whether floors are counted: the default source has a barometer and floor counting is built in.
  open class func isFloorCountingAvailable() -> Bool { MotionHistoryBackends.defaultCountsFloors }
  /// Whether the current pace is reported.
  open class func isPaceAvailable() -> Bool { countsSteps(MotionHistoryBackends.defaultSensors) }
  /// Whether the current cadence is reported.
  open class func isCadenceAvailable() -> Bool { countsSteps(MotionHistoryBackends.defaultSensors) }
  /// Whether pause and resume events are reported.
  open class func isPedometerEventTrackingAvailable() -> Bool {
    countsSteps(MotionHistoryBackends.defaultSensors)
  }

  /// Whether the app may use the pedometer (see ``CMAuthorizationStatus``).
  open class func authorizationStatus() -> CMAuthorizationStatus { .processDefault }

  static func countsSteps(_ sensors: SensorSet) -> Bool { sensors.contains(.accelerometer) }

  /// Why this pedometer cannot serve, or `nil`.
  private var serviceError: NSError? { Self.stepCountingError(backend: backend) }

  /// Why steps cannot be counted on `backend` (not authorized, or no accelerometer), or `nil`;
  /// shared with ``CMStepCounter``.
  static func stepCountingError(backend: any MotionHistoryBackend) -> NSError? {
    motionServiceError(
      isAvailable: countsSteps(backend.availableSensors), service: "step counting",
      backend: backend)
  }

  // MARK: Queries

  /// Reports the totals of `start ... end` once, on the pedometer's queue. Only what the history
  /// holds is counted (at most the last 7 days). `currentPace` and `currentCadence` are `nil`.
  /// A start after the end, or a date that is not finite (NaN or infinity), delivers
  /// `CMErrorInvalidParameter`.
  open func queryPedometerData(
    from start: Date, to end: Date, withHandler handler: @escaping CMPedometerHandler
  ) {
    let backend = backend
    queries.answer(
      from: start, to: end, refusal: serviceError, on: handlerQueue,
      ask: { .success(backend.pedometerSummary(from: $0, to: $1)) }
    ) { answer in
      switch answer {
      case .success(let summary): handler(Self.data(summary, live: false), nil)
      case .failure(let error): handler(nil, error)
      }
    }
  }

  // MARK: Live updates

  /// Starts live updates: each carries the totals from `start` to the latest step (cumulative),
  /// delivered on the pedometer's queue when steps or floors are counted (at most one per second
  /// while walking, and one at each pause). When the history already holds steps since `start`,
  /// their totals come at once. On the motion daemon a past `start` counts from the daemon's
  /// stored history (steps taken while no app ran included), then adds the steps counted live.
  /// A start that is not finite (NaN or infinity) delivers `CMErrorInvalidParameter` and no
  /// update. A second call replaces the first.
  open func startUpdates(from start: Date, withHandler handler: @escaping CMPedometerHandler) {
    connectUpdates(updateChannel, from: start, sink: .queue(handlerQueue, handler))
  }

  /// Stops live updates; no update handler runs after this returns (unless it is called from
  /// inside another service's handler while one is running: see ``CMPedometer``).
  open func stopUpdates() {
    updateChannel.end()
  }

  /// Starts pause and resume events on the pedometer's queue: a pause dated 2 s after the last
  /// step, sent once that step was reported 2 s ago (or at the source's last sample, when it ends
  /// sooner; up to 4 s later while the step detector still holds a peak, less than 2 s after
  /// that step, that a bout it is confirming may count), a resume at the first step of the next
  /// walk. A second call replaces the first.
  open func startEventUpdates(handler: @escaping CMPedometerEventHandler) {
    connectEvents(eventChannel, sink: .queue(handlerQueue, handler))
  }

  /// Stops pause and resume events; no event handler runs after this returns (unless it is called
  /// from inside another service's handler while one is running: see ``CMPedometer``).
  open func stopEventUpdates() {
    eventChannel.end()
  }

  // MARK: Plumbing shared with the async sequences

  func connectUpdates(
    _ channel: UpdateChannel<CMPedometerData>, from start: Date,
    sink: UpdateChannel<CMPedometerData>.Sink
  ) {
    if let error = serviceError { return channel.refuse(error, sink: sink) }
    // A NaN start would drop every step (no date is at or after it), so the updates would stay
    // silent for ever; an infinite one asks the history for a window it cannot have.
    guard start.timeIntervalSinceReferenceDate.isFinite else {
      return channel.refuse(
        NSError(CMErrorInvalidParameter, description: "the start date is not finite"), sink: sink)
    }
    // The totals of each update (on the daemon: its stored count from `start`, then its counter;
    // asking for it may take a moment). The run in progress ends first, so that this start
    // replaces it even if an earlier start still waiting for its totals begins after it.
    channel.end()
    let endsBefore = channel.endCount
    let totals = backend.pedometerUpdates(from: start)
    // A stop (or another start) issued meanwhile wins: it came after this start.
    guard channel.endCount == endsBefore else { return }
    // Source time of the last delivery, and whether steps arrived since.
    let pacing = Locked<(lastDelivery: Double?, pending: (date: Date, timestamp: Double)?)>(
      (nil, nil))
    // What the last update carried, so that a pause can tell whether the totals grew since.
    let delivered = Locked<(date: Date, timestamp: Double, steps: Int)?>(nil)
    // The latest end of an update sent, the opening one included. An update never ends before
    // it, so cumulative totals never go back: a step the riding gate gives back late is dated
    // before floors counted since (they may be dated up to the reading that counted them), and
    // its own date would leave them out.
    let latestEnd = Locked<Date?>(nil)
    // The largest totals handed over in this run. Apple's updates are cumulative from `start`: a
    // count never goes back within one run. Recomputed from the history, it could: steps older
    // than 7 days pruned from under an old `start`, or steps moved forward with a clock set
    // forward while an update's end stayed on the old clock (the pause's update counted ~0).
    let shown = Locked<PedometerSummary?>(nil)
    let deliver: @Sendable (Date, Double, UInt64) -> Void = { date, timestamp, generation in
      guard date >= start else { return }
      let end = latestEnd.withLock { latest -> Date in
        let end = Swift.max(date, latest ?? date)
        latest = end
        return end
      }
      let computed = totals(end)
      // Raised under the channel's lock, in hand-over order: the floor is what went out before.
      channel.offer(timestamp: timestamp, generation: generation) {
        let summary = shown.withLock { floor -> PedometerSummary in
          let raised = computed.notBelow(floor)
          floor = raised
          return raised
        }
        delivered.withLock { $0 = (end, timestamp, summary.numberOfSteps) }
        return Self.data(summary, live: true)
      }
    }
    let generation = channel.connect(to: backend, sink: sink, holdingFinish: true) {
      event, generation in
      switch event {
      case .step(let step):
        let due = pacing.withLock { p -> Bool in
          if let last = p.lastDelivery, step.timestamp - last < Self.updateSpacing {
            p.pending = (step.date, step.timestamp)
            return false
          }
          p.lastDelivery = step.timestamp
          p.pending = nil
          return true
        }
        if due { deliver(step.date, step.timestamp, generation) }
      case .floors(let floors):
        let timestamp = pacing.withLock { p -> Double in
          p.pending = nil
          return p.lastDelivery ?? 0
        }
        // Up to when they were counted, not walked: floors that late steps showed to be walked
        // are dated before steps counted since, which the update must keep.
        deliver(floors.countedDate, timestamp, generation)
      case .pedestrian(let change) where change.isPause:
        // The next step after a pause is delivered at once. This also starts the spacing afresh
        // when the source's clock restarted lower (the history pauses a walk in progress then):
        // measured from the old clock's last delivery, every later step would be held.
        if let pending = pacing.withLock({ p in
          defer {
            p.pending = nil
            p.lastDelivery = nil
          }
          return p.pending
        }) {
          deliver(pending.date, pending.timestamp, generation)
        } else if let last = delivered.withLock({ $0 }),
          totals(last.date).numberOfSteps > last.steps
        {
          // The totals grew after the last update without a step event of this process: on the
          // daemon, its counter for the last steps arrived after the update the step triggered.
          // The pause brings the final count.
          deliver(last.date, last.timestamp, generation)
        }
      case .finished:
        if let pending = pacing.withLock({ p in
          defer { p.pending = nil }; return p.pending
        }) {
          deliver(pending.date, pending.timestamp, generation)
        }
        channel.finish(generation: generation)
      case .failure(let failure):
        channel.report(failure, generation: generation)
      default:
        break
      }
    }
    // Steps already in the history since `start` (on the daemon, also those taken while no app
    // ran). The channel drops it if a live update (which includes them) went out first.
    let now = Date()
    let past = totals(now)
    if past.numberOfSteps > 0 {
      // Later updates end no earlier (if the channel drops this one, a live update went out
      // first, and ending no earlier than now loses nothing).
      latestEnd.withLock { $0 = Swift.max(now, $0 ?? now) }
      channel.deliverOpening(generation: generation) {
        shown.withLock { $0 = past.notBelow($0) }
        return Self.data(past, live: false)
      }
    }
    channel.releaseFinish(generation: generation)
  }

  func connectEvents(
    _ channel: UpdateChannel<CMPedometerEvent>, sink: UpdateChannel<CMPedometerEvent>.Sink
  ) {
    if let error = serviceError { return channel.refuse(error, sink: sink) }
    channel.connect(to: backend, sink: sink) { event, generation in
      switch event {
      case .pedestrian(let change):
        channel.deliver(
          CMPedometerEvent(date: change.date, type: change.isPause ? .pause : .resume),
          timestamp: change.date.timeIntervalSinceReferenceDate, generation: generation)
      case .finished:
        channel.finish(generation: generation)
      case .failure(let failure):
        channel.report(failure, generation: generation)
      default:
        break
      }
    }
  }

  /// The API object for `summary`; live data carries the current pace and cadence when known.
  static func data(_ summary: PedometerSummary, live: Bool) -> CMPedometerData {
    var currentCadence: Double?
    var currentPace: Double?
    if live, let cadence = summary.recentCadence, let stride = summary.recentStride, cadence > 0,
      stride > 0
    {
      currentCadence = cadence
      currentPace = 1 / (cadence * stride)
    }
    let averageActivePace =
      summary.distance > 0 && summary.activeDuration > 0
      ? summary.activeDuration / summary.distance : nil
    return CMPedometerData(
      startDate: summary.startDate, endDate: summary.endDate, numberOfSteps: summary.numberOfSteps,
      distance: summary.distance, floorsAscended: summary.floorsAscended,
      floorsDescended: summary.floorsDescended, currentPace: currentPace,
      currentCadence: currentCadence,
      averageActivePace: averageActivePace)
  }
}
