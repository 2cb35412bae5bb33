// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

/// Receives the result of a step-count query: the number of steps, or an error (then 0).
public typealias CMStepQueryHandler = (Int, (any Error)?) -> Void
/// Receives live step counts: the steps since updates started, the date of the latest of them,
/// or an error (then 0 and the current date).
public typealias CMStepUpdateHandler = (Int, Date, (any Error)?) -> Void

/// Core Motion's first step-counting API (iOS 7), which Apple deprecated in iOS 8 for
/// ``CMPedometer``. It is here so that code written against it compiles and runs unchanged. The
/// deprecation is declared for iOS, as Apple declares it, so Linux builds do not warn: the
/// attribute documents it, and new code should use ``CMPedometer``.
///
/// It reads the same step history as ``CMPedometer`` (the process's default source, or the motion
/// daemon), so both count the same steps. Handlers run on the `OperationQueue` the caller passes,
/// and after ``stopStepCountingUpdates()`` returns no update handler runs any more, unless the
/// stop was called from inside a handler of another Core Motion service: it then does not wait
/// for an update handler already running on another thread (two handlers stopping each other's
/// service would wait for each other for ever), which may finish after the stop returns.
@available(iOS, introduced: 7.0, deprecated: 8.0, message: "Use CMPedometer instead")
open class CMStepCounter: NSObject {
  package let backend: any MotionHistoryBackend
  private let channel = UpdateChannel<StepCount>(interval: 0)
  /// Where queries are answered, one at a time in the order they were made.
  private let queries = HistoryQueries(label: "OpenCoreMotion.CMStepCounter.queries")

  /// Creates a step counter for the process's default source.
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: an app's mock subclass can
  /// call `super.init()` or inherit it.
  public override init() {
    backend = MotionHistoryBackends.default
    super.init()
  }

  /// Creates a step counter for `source`. An addition to Apple's API (simulations, recordings,
  /// tests).
  public convenience init(source: any SensorSource) {
    self.init(backend: InProcessMotionHistory.shared(for: source))
  }

  package init(backend: any MotionHistoryBackend) {
    self.backend = backend
    super.init()
  }

  deinit {
    channel.end()
  }

  /// Whether steps can be counted: the default source has an accelerometer.
  open class func isStepCountingAvailable() -> Bool {
    CMPedometer.countsSteps(MotionHistoryBackends.defaultSensors)
  }

  /// Why this counter cannot serve, or `nil`.
  private var serviceError: NSError? { CMPedometer.stepCountingError(backend: backend) }

  /// Reports the steps counted from `start` to `end` once, on `queue`. Only what the history holds
  /// is counted (at most the last 7 days). A start after the end, or a date that is not finite
  /// (NaN or infinity), delivers 0 and `CMErrorInvalidParameter`.
  open func queryStepCountStarting(
    from start: Date, to end: Date, to queue: OperationQueue,
    withHandler handler: @escaping CMStepQueryHandler
  ) {
    let backend = backend
    queries.answer(
      from: start, to: end, refusal: serviceError, on: queue,
      ask: { .success(backend.pedometerSummary(from: $0, to: $1).numberOfSteps) }
    ) { answer in
      switch answer {
      case .success(let steps): handler(steps, nil)
      case .failure(let error): handler(0, error)
      }
    }
  }

  /// Starts counting from zero now and calls `handler` on `queue` every `stepCounts` steps, with
  /// the total since the start and the date of the latest step; a `stepCounts` below 1 counts as
  /// 1. When the walk pauses, the steps not yet reported are reported (fewer than `stepCounts`).
  /// The first steps of a walk are confirmed together about 1.5 s after they happen, so their
  /// calls come in a burst. A second call replaces the first and starts again from zero.
  open func startStepCountingUpdates(
    to queue: OperationQueue, updateOn stepCounts: Int,
    withHandler handler: @escaping CMStepUpdateHandler
  ) {
    let wrapped: UpdateChannel<StepCount>.Handler = { count, error in
      handler(count?.steps ?? 0, count?.date ?? Date(), error)
    }
    let sink = UpdateChannel<StepCount>.Sink.queue(queue, wrapped)
    if let error = serviceError { return channel.refuse(error, sink: sink) }
    connect(every: max(stepCounts, 1), sink: sink)
  }

  /// Stops live counting; no update handler runs after this returns (unless it is called from
  /// inside another service's handler while one is running: see ``CMStepCounter``).
  open func stopStepCountingUpdates() {
    channel.end()
  }

  /// Feeds the channel with the steps counted since now, each delivery at least `spacing` steps
  /// after the last one.
  ///
  /// The count is of the step events that arrive from now on, not of the history's steps dated
  /// after now: "now" on the source's clock (a recording played back, a simulation) is not the
  /// wall clock, and the first steps of a walk are confirmed together, slightly after they
  /// happened, so a walk already under way when counting starts keeps all its confirmed steps.
  private func connect(every spacing: Int, sink: UpdateChannel<StepCount>.Sink) {
    let channel = channel
    // Steps counted, steps delivered, and the latest step (for the report at a pause).
    let tally = Locked<(counted: Int, delivered: Int, latest: (date: Date, timestamp: Double)?)>(
      (0, 0, nil))
    channel.connect(to: backend, sink: sink) { event, generation in
      let due: (steps: Int, date: Date, timestamp: Double)?
      switch event {
      case .step(let step):
        due = tally.withLock { t in
          t.counted += 1
          t.latest = (step.date, step.timestamp)
          guard t.counted - t.delivered >= spacing else { return nil }
          t.delivered = t.counted
          return (t.counted, step.date, step.timestamp)
        }
      case .pedestrian(let change) where change.isPause:
        // The walk paused: the steps not yet reported go out now.
        due = tally.withLock { t in
          guard t.counted > t.delivered, let latest = t.latest else { return nil }
          t.delivered = t.counted
          return (t.counted, latest.date, latest.timestamp)
        }
      case .finished:
        channel.finish(generation: generation)
        return
      case .failure(let failure):
        channel.report(failure, generation: generation)
        return
      default:
        return
      }
      if let due {
        channel.deliver(
          StepCount(steps: due.steps, date: due.date), timestamp: due.timestamp,
          generation: generation)
      }
    }
  }
}

/// One live step count: the total since the start and the date of the latest step.
private final class StepCount: Sendable {
  let steps: Int
  let date: Date

  init(steps: Int, date: Date) {
    self.steps = steps
    self.date = date
  }
}
