// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionSensors

/// One stream of updates of one kind (accelerometer, gyroscope, magnetometer or device motion) from
/// a source to one consumer: an `OperationQueue` handler, the pull property, or an async sequence.
///
/// Every start begins a new *generation*; samples and queued operations carry the generation they
/// were made for and are dropped once it is over. Handlers run while `handlerLock` is held and
/// ``end()`` takes that lock, so when `end()` returns no handler of this channel is running or will
/// run again. The lock is recursive, so a handler may stop its own updates.
///
/// `@unchecked Sendable`: the mutable state is in `state` (a lock) and handler calls are serialised
/// by `handlerLock`; the `Sink`'s closures are only called by the source's one delivery thread.
final class UpdateChannel<Item: AnyObject>: @unchecked Sendable {
  typealias Handler = (Item?, (any Error)?) -> Void

  /// Where delivered items go.
  enum Sink {
    /// Nowhere but ``UpdateChannel/latest`` (pull mode).
    case pull
    /// One operation per item on the queue.
    case queue(OperationQueue, Handler)
    /// Straight to an async sequence's continuation, on the source's thread.
    case stream(yield: (Item) -> Void, finish: ((any Error)?) -> Void)
    /// A handler called on the source's delivery thread, with the same guarantees as a queued one
    /// (under `handlerLock`, never after ``end()``) but without the hop to an `OperationQueue`.
    case immediate(Handler)
  }

  private struct State {
    var generation: UInt64 = 0
    var isActive = false
    /// Calls of ``end()`` so far, whether or not a run was in progress.
    var ends: UInt64 = 0
    /// Whether the run's end of source is held back until its opening update has been offered
    /// (see ``holdFinish(generation:)``), and whether it came meanwhile.
    var finishHold = FinishHold.none
    var interval: Double
    var latest: Item?
    var decimator = UpdateDecimator(nominalSourcePeriod: 0.01)
    /// Whether the run has delivered anything (an opening item comes only before that).
    var hasDelivered = false
    var subscription: SourceSubscription?
    /// How the run subscribes to its source at a given rate (Hz), when it asks for its interval's
    /// rate (``attach(generation:subscribingAt:)``), and the interval its subscription asked for.
    var subscribe: ((Double, UInt64) -> SourceSubscription)?
    var subscribedInterval: Double?
    /// The number of the latest subscription ``followInterval()`` made or is making.
    var subscriptionNumber: UInt64 = 0
    /// While ``followInterval()`` makes a subscription (the one it replaces still delivering):
    /// the failures passed on from one subscription that the other has not delivered yet.
    var overlapFailures: [(subscription: UInt64, failure: SourceFailure)]?
    /// Whether a call of ``followInterval()`` is bringing the subscription up to date (across
    /// runs: it follows whichever run is in progress).
    var isFollowingInterval = false
    var sink: Sink = .pull

    /// Whether the run in progress subscribes at its interval's rate and its subscription asked
    /// for another (or it has none yet).
    var isResubscriptionDue: Bool { isActive && subscribe != nil && subscribedInterval != interval }
  }

  private let state: Locked<State>
  private let handlerLock = NSRecursiveLock()
  /// Keeps the hand-over of items in the order they were decided (see ``offer(timestamp:generation:opening:make:)``).
  private let orderLock = NSLock()
  /// Operations queued for a handler and not yet run, and updates dropped because too many were.
  private let backlog = Locked<(pending: Int, dropped: Int)>((0, 0))

  /// The most updates queued for a handler at once. A handler queue that is blocked or slower than
  /// the source used to collect one `Operation` per sample without limit (1 GB behind a blocked
  /// consumer); now, while this many are waiting, newer updates are dropped and counted
  /// (``droppedUpdateCount``, and one warning in the log). Errors are always queued.
  static var maximumQueuedUpdates: Int { 1000 }

  /// Updates dropped because the handler's queue had ``maximumQueuedUpdates`` waiting.
  var droppedUpdateCount: Int { backlog.withLock { $0.dropped } }

  init(interval: Double) {
    state = Locked(State(interval: interval))
  }

  /// Whether a run is in progress (between a start and the matching stop).
  var isActive: Bool { state.withLock { $0.isActive } }

  /// Calls of ``end()`` so far (a stop, or the start of another run). A start that prepares
  /// before it begins its run (the pedometer asks the daemon for totals) compares it before and
  /// after: a stop that came meanwhile must win, as it would had the start returned at once.
  var endCount: UInt64 { state.withLock { $0.ends } }

  /// The most recently delivered item, kept after a stop.
  var latest: Item? { state.withLock { $0.latest } }

  /// The delivery interval in seconds; a change applies to a run in progress from its next sample,
  /// and a run that asks its source for its interval's rate asks again (on a thread of its own
  /// when the change comes from inside a handler: see ``followInterval()``).
  var interval: Double {
    get { state.withLock { $0.interval } }
    set {
      state.withLock { $0.interval = newValue }
      followInterval()
    }
  }

  /// Ends any run in progress and begins a new one; returns its generation.
  func begin(sink: Sink, nominalSourcePeriod: Double) -> UInt64 {
    end()
    return state.withLock { s in
      s.generation &+= 1
      s.isActive = true
      s.sink = sink
      s.finishHold = .none
      s.decimator = UpdateDecimator(nominalSourcePeriod: nominalSourcePeriod)
      s.hasDelivered = false
      return s.generation
    }
  }

  /// Keeps `subscription` for ``end()``; cancels it at once if the run is already over.
  func attach(_ subscription: SourceSubscription, generation: UInt64) {
    let isCurrent = state.withLock { s -> Bool in
      guard s.isActive, s.generation == generation else { return false }
      s.subscription = subscription
      return true
    }
    if !isCurrent { subscription.cancel() }
  }

  /// Subscribes run `generation` to its source with `subscribe`, given the rate its ``interval``
  /// asks for (Hz) and the subscription's number (which its failures carry to
  /// ``report(_:generation:subscription:)``), and subscribes again whenever the interval changes
  /// while the run lasts. (When another thread is subscribing this channel's runs at that moment,
  /// that thread makes this run's subscription too, and this returns before it is made: see
  /// ``followInterval()``.)
  ///
  /// For sources that honour the requested rate: IIO hardware samples at the highest rate its
  /// subscribers ask for, and the motion daemon sends each subscriber its own rate. A subscription
  /// kept from the start would go on at the start's rate, so that a manager started at 1 s and set
  /// to 0.02 s kept delivering once a second.
  func attach(
    generation: UInt64, subscribingAt subscribe: @escaping (Double, UInt64) -> SourceSubscription
  ) {
    state.withLock { s in
      if s.isActive, s.generation == generation { s.subscribe = subscribe }
    }
    followInterval()
  }

  /// Subscribes the run in progress at its interval's rate when its subscription asked for
  /// another one (or it has none yet). The new subscription is made before the old one is
  /// cancelled, so that the source does not stop in between (the IIO reader would close the
  /// device); a sample both deliver is offered twice and paced once, a failure both deliver is
  /// reported once (``report(_:generation:subscription:)``).
  ///
  /// One call at a time does it, holding no lock while it subscribes, and goes on until the
  /// subscription asks for the interval in force: a call meanwhile (an interval set on another
  /// thread) leaves it to that one. A source may deliver inside `subscribe` (a daemon that is away
  /// says so at once), and a delivery-thread handler called there may set the interval or start
  /// the updates again, which comes back here on the same thread: under a lock held across
  /// `subscribe`, as it was, that call waited for the lock for ever.
  ///
  /// Called from inside a handler, it subscribes on a thread of its own and returns at once. A
  /// source may hold `subscribe` for seconds (a daemon that is away: `DaemonSource` retries the
  /// connection for up to 4 s), and a handler holds `handlerLock` while it runs, which ``end()``
  /// waits for: a stop from another thread waited that long for the handler's interval change.
  private func followInterval() {
    // Nothing to do, or another call doing it: no thread is started for nothing (a handler that
    // sets the same interval at every update).
    let isFirst = state.withLock { s -> Bool in
      guard !s.isFollowingInterval, s.isResubscriptionDue else { return false }
      s.isFollowingInterval = true
      return true
    }
    guard isFirst else { return }
    if HandlerThread.isRunningHandler {
      let thread = Thread { [self] in resubscribeWhileDue() }
      thread.name = "OpenCoreMotion resubscription"
      thread.start()
    } else {
      resubscribeWhileDue()
    }
  }

  /// The work of ``followInterval()``, by the one call doing it: subscribes until the
  /// subscription asks for the interval in force.
  private func resubscribeWhileDue() {
    while let (generation, interval, number, subscribe) = dueResubscription() {
      let subscription = subscribe(1 / interval, number)
      let replaced = state.withLock { s -> SourceSubscription? in
        guard s.isActive, s.generation == generation else { return subscription }
        defer {
          s.subscription = subscription
          s.subscribedInterval = interval
        }
        return s.subscription
      }
      // After the lock: a cancellation waits for a delivery in progress, whose handler may be
      // setting an interval itself.
      replaced?.cancel()
      state.withLock { $0.overlapFailures = nil }
    }
  }

  /// What the run in progress must subscribe with next (its generation, its interval, the new
  /// subscription's number, and how it subscribes), or `nil` when its subscription is up to date;
  /// then ``followInterval()`` is over, in the same locked step, so that an interval set after it
  /// starts a call of its own.
  private func dueResubscription() -> (
    UInt64, Double, UInt64, (Double, UInt64) -> SourceSubscription
  )? {
    state.withLock { s in
      guard s.isResubscriptionDue, let subscribe = s.subscribe else {
        s.isFollowingInterval = false
        return nil
      }
      s.subscriptionNumber &+= 1
      s.overlapFailures = []
      return (s.generation, s.interval, s.subscriptionNumber, subscribe)
    }
  }

  /// Offers the sample at `timestamp`; when it is due, builds the item with `make` (which may
  /// refuse by returning `nil`) and delivers it. Called serially by the source.
  ///
  /// An `opening` item (the state in force when the run starts: the current activity, the steps
  /// already counted) bypasses the schedule and is delivered only while the run has delivered
  /// nothing: a live item that went out first is newer and already includes it.
  func offer(timestamp: Double, generation: UInt64, opening: Bool = false, make: () -> Item?) {
    // Held from the decision to the hand-over to a queue or a sequence, so that items reach them
    // in the order they were decided: an opening item decided on the caller's thread cannot be
    // queued after a newer live one decided on the source's thread. (A handler called on this
    // thread is called after it is released: it may start or stop updates.)
    orderLock.lock()
    var isOrderLockHeld = true
    defer { if isOrderLockHeld { orderLock.unlock() } }
    let delivery = state.withLock { s -> (Sink, Item)? in
      guard s.isActive, s.generation == generation,
        opening ? !s.hasDelivered : s.decimator.accept(timestamp, interval: s.interval),
        let item = make()
      else { return nil }
      s.latest = item
      s.hasDelivered = true
      return (s.sink, item)
    }
    guard let (sink, item) = delivery else { return }
    switch sink {
    case .pull:
      break
    case .queue(let queue, let handler):
      let firstDrop = backlog.withLock { b -> Bool? in
        guard b.pending >= Self.maximumQueuedUpdates else {
          b.pending += 1
          return nil
        }
        b.dropped += 1
        return b.dropped == 1
      }
      if let firstDrop {
        if firstDrop {
          Logger.openCoreMotion.warning(
            "a motion update handler's queue has \(Self.maximumQueuedUpdates) updates waiting; newer updates are dropped until it catches up"
          )
        }
        return
      }
      let call = PendingCall(handler: handler, item: item, error: nil)
      let slot = BacklogSlot(backlog)
      let operation = BlockOperation { [self] in
        slot.release()
        run(call, generation: generation)
      }
      // An operation the app cancels (`cancelAllOperations()`) never runs its block but still
      // completes: its slot is given back then. Left taken, the slots would run out and every
      // later update be dropped.
      operation.completionBlock = { slot.release() }
      queue.addOperation(operation)
    case .immediate(let handler):
      orderLock.unlock()
      isOrderLockHeld = false
      run(PendingCall(handler: handler, item: item, error: nil), generation: generation)
    case .stream(let yield, _):
      yield(item)
    }
  }

  /// Reports an error to the consumer of run `generation` (the pull property has no consumer).
  func fail(_ error: any Error, generation: UInt64) {
    let sink = sink(of: generation)
    if case .stream(_, let finish) = sink {
      finish(error)
    } else {
      callHandler(with: error, sink: sink, generation: generation)
    }
  }

  /// Passes a source's failure to run `generation`: only a fatal one ends the run (``fail(_:generation:)``);
  /// an advisory one reaches a handler and updates go on (``advise(_:generation:)``).
  ///
  /// `subscription` is the number of the subscription that delivered it, for a run that
  /// ``attach(generation:subscribingAt:)`` subscribes: the same failure from both subscriptions
  /// of a resubscription is reported once.
  func report(_ failure: SourceFailure, generation: UInt64, subscription: UInt64? = nil) {
    if let subscription, !isFirstDelivery(of: failure, generation: generation, from: subscription) {
      return
    }
    if failure.isFatal {
      fail(NSError(failure), generation: generation)
    } else {
      advise(NSError(failure), generation: generation)
    }
  }

  /// The most failures kept while a resubscription lasts, waiting for the other subscription to
  /// deliver them too: a source delivers each failure to both at once, so a few are plenty, and
  /// a source that reports many to one subscription only must not grow the list.
  static var maximumOverlapFailures: Int { 16 }

  /// Whether `failure`, delivered to run `generation` by subscription `number`, is news rather
  /// than one the other subscription of a resubscription in progress passed on already. A source
  /// delivers each failure to every subscription; while ``followInterval()`` holds two, both
  /// delivered it and the handler saw it twice. (A sample both deliver is paced once by its
  /// timestamp; a failure has none, so it is matched to its copy.)
  private func isFirstDelivery(
    of failure: SourceFailure, generation: UInt64, from number: UInt64
  ) -> Bool {
    state.withLock { s in
      // An ended run's failure goes nowhere anyway; kept, it could hide the next run's.
      guard s.isActive, s.generation == generation else { return false }
      guard let passed = s.overlapFailures else { return true }
      if let copy = passed.firstIndex(where: { $0.subscription != number && $0.failure == failure })
      {
        s.overlapFailures?.remove(at: copy)
        return false
      }
      if passed.count >= Self.maximumOverlapFailures { s.overlapFailures?.removeFirst() }
      s.overlapFailures?.append((number, failure))
      return true
    }
  }

  /// Reports an error that does not end the run (such as `CMErrorDeviceRequiresMovement`) to a
  /// handler; async sequences and the pull property have no place for it and skip it.
  func advise(_ error: any Error, generation: UInt64) {
    callHandler(with: error, sink: sink(of: generation), generation: generation)
  }

  /// Tells an async-sequence consumer of run `generation` that the source has no more samples
  /// (once its opening update is offered, if the run holds the end back for it).
  func finish(generation: UInt64) {
    let sink = state.withLock { s -> Sink? in
      guard s.isActive, s.generation == generation else { return nil }
      guard s.finishHold == .none else {
        s.finishHold = .requested
        return nil
      }
      return s.sink
    }
    if case .stream(_, let finish) = sink { finish(nil) }
  }

  /// Whether the end of the source waits for a run's opening update.
  enum FinishHold: Sendable {
    case none
    case held
    case requested
  }

  /// Holds back the end of source for run `generation` until ``releaseFinish(generation:)``: a
  /// source that has already finished reports it as soon as the run subscribes, before the
  /// service offers the opening update (the activity in force, the steps since the start date),
  /// and an async sequence would end without it.
  func holdFinish(generation: UInt64) {
    state.withLock { s in
      if s.isActive, s.generation == generation { s.finishHold = .held }
    }
  }

  /// Ends the hold of ``holdFinish(generation:)``, delivering the end of source if it came.
  func releaseFinish(generation: UInt64) {
    let isDue = state.withLock { s -> Bool in
      guard s.isActive, s.generation == generation else { return false }
      defer { s.finishHold = .none }
      return s.finishHold == .requested
    }
    if isDue { finish(generation: generation) }
  }

  /// The sink of run `generation`, or `nil` once that run is over.
  private func sink(of generation: UInt64) -> Sink? {
    state.withLock { s -> Sink? in
      guard s.isActive, s.generation == generation else { return nil }
      return s.sink
    }
  }

  /// Hands `error` to the handler of a queue or delivery-thread sink (errors are never dropped
  /// from a queue); the other sinks have no handler.
  private func callHandler(with error: any Error, sink: Sink?, generation: UInt64) {
    switch sink {
    case .queue(let queue, let handler):
      let call = PendingCall(handler: handler, item: nil, error: error)
      queue.addOperation { [self] in run(call, generation: generation) }
    case .immediate(let handler):
      run(PendingCall(handler: handler, item: nil, error: error), generation: generation)
    case .stream, .pull, nil:
      break
    }
  }

  /// Ends the run in progress, if any: no handler runs after this returns. Called from inside a
  /// handler of another channel while this channel's handler runs on another thread, it does not
  /// wait for that call to return (the call may itself be waiting to stop the caller's service:
  /// two handlers stopping each other's service would wait for each other for ever): that call
  /// may still be starting as this returns, but no call that checks the run after this ended it
  /// runs.
  func end() {
    let holdsHandlerLock: Bool
    if HandlerThread.isRunningHandler {
      holdsHandlerLock = handlerLock.try()
    } else {
      handlerLock.lock()
      holdsHandlerLock = true
    }
    let (subscription, oldSink) = state.withLock { s -> (SourceSubscription?, Sink) in
      if s.isActive { s.generation &+= 1 }
      s.isActive = false
      s.ends &+= 1
      // The next run's failures are not copies of this one's.
      if s.overlapFailures != nil { s.overlapFailures = [] }
      defer {
        s.sink = .pull
        s.subscription = nil
        s.subscribe = nil
        s.subscribedInterval = nil
      }
      return (s.subscription, s.sink)
    }
    // The old sink (the app's handler and what it captured) is released after both locks: an
    // object kept alive only by the handler may stop or restart this service in its deinit, which
    // would call this again and wait for ever on a lock held here.
    withExtendedLifetime(oldSink) {
      if holdsHandlerLock { handlerLock.unlock() }
    }
    subscription?.cancel()
  }

  private func run(_ call: PendingCall, generation: UInt64) {
    handlerLock.lock()
    defer { handlerLock.unlock() }
    guard state.withLock({ $0.isActive && $0.generation == generation }) else { return }
    HandlerThread.whileRunningHandler { call.handler(call.item, call.error) }
  }

  /// One queued update's place in the backlog, given back once (by whichever of its operation's
  /// block and completion comes first).
  private final class BacklogSlot: Sendable {
    private let backlog: Locked<(pending: Int, dropped: Int)>
    private let isReleased = Locked(false)

    init(_ backlog: Locked<(pending: Int, dropped: Int)>) { self.backlog = backlog }

    func release() {
      let isFirst = isReleased.withLock { released -> Bool in
        defer { released = true }
        return !released
      }
      if isFirst { backlog.withLock { $0.pending -= 1 } }
    }
  }

  /// One handler call handed to an `OperationQueue`.
  ///
  /// `@unchecked Sendable`: Apple's handler closures and data objects are not `Sendable`. The
  /// handler runs only on the caller's queue (as with Core Motion), and the item is immutable after
  /// `init` (see ``ImmutableItem``).
  private struct PendingCall: @unchecked Sendable {
    let handler: Handler
    let item: Item?
    let error: (any Error)?
  }
}
