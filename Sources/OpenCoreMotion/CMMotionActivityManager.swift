// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors
import MotionSensors

/// Reports whether the person is stationary, walking, running, cycling or in a vehicle, live and
/// over the recent past.
///
/// `CMMotionActivityManager()` reads the process's default source (`COREMOTION_SOURCE`) through the
/// in-process motion history: queries answer from what this process observed since the first
/// pedometer, activity manager, altimeter or sensor recorder was created. After
/// ``stopActivityUpdates()`` returns, no update handler runs any more, unless the stop was called
/// from inside a handler of another Core Motion service: it then does not wait for an update
/// handler already running on another thread (two handlers stopping each other's service would
/// wait for each other for ever), which may finish after the stop returns; no later one starts.
/// Updates also stop when the manager is deallocated.
open class CMMotionActivityManager: NSObject {
  package let backend: any MotionHistoryBackend
  private let channel = UpdateChannel<CMMotionActivity>(interval: 0)
  /// Where queries are answered, one at a time in the order they were made.
  private let queries = HistoryQueries(label: "OpenCoreMotion.CMMotionActivityManager.queries")

  /// Creates a manager for the process's default source.
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: an app's mock subclass can
  /// call `super.init()` or inherit it.
  public override init() {
    backend = MotionHistoryBackends.default
    super.init()
  }

  /// Creates a manager for `source`. An addition to Apple's API (simulations, recordings, tests).
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

  /// Whether activity is classified: the default source has an accelerometer.
  open class func isActivityAvailable() -> Bool { classifies(MotionHistoryBackends.defaultSensors) }

  /// Whether the app may use motion activity (see ``CMAuthorizationStatus``).
  open class func authorizationStatus() -> CMAuthorizationStatus { .processDefault }

  static func classifies(_ sensors: SensorSet) -> Bool { sensors.contains(.accelerometer) }

  private var serviceError: NSError? {
    motionServiceError(
      isAvailable: Self.classifies(backend.availableSensors), service: "motion activity",
      backend: backend)
  }

  /// Starts activity updates on `queue`: the current activity at once (once one has been
  /// observed), then each change. A second call replaces the first. Without an accelerometer, or
  /// when not authorized, nothing is delivered (the handler has no error parameter).
  open func startActivityUpdates(
    to queue: OperationQueue, withHandler handler: @escaping CMMotionActivityHandler
  ) {
    connect(channel, sink: .queue(queue, { activity, _ in if let activity { handler(activity) } }))
  }

  /// Stops activity updates; no handler runs after this returns (unless it is called from inside
  /// another service's handler while one is running: see ``CMMotionActivityManager``).
  open func stopActivityUpdates() {
    channel.end()
  }

  /// Reports, on `queue`, the activities in `start ... end` in time order: the one in force at
  /// `start` (whose `startDate` may be earlier), then each change. No activity in the window
  /// delivers `CMErrorUnknown`, as on Apple devices; a start after the end, or a date that is not
  /// finite (NaN or infinity), `CMErrorInvalidParameter`; no accelerometer
  /// `CMErrorMotionActivityNotAvailable`.
  open func queryActivityStarting(
    from start: Date, to end: Date, to queue: OperationQueue,
    withHandler handler: @escaping CMMotionActivityQueryHandler
  ) {
    let backend = backend
    queries.answer(
      from: start, to: end, refusal: serviceError, on: queue,
      ask: { start, end in
        let records = backend.activities(from: start, to: end)
        return records.isEmpty
          ? .failure(
            NSError(CMErrorUnknown, description: "no motion activity was observed in the window"))
          : .success(records)
      }
    ) { answer in
      switch answer {
      case .success(let records): handler(records.map(Self.activity), nil)
      case .failure(let error): handler(nil, error)
      }
    }
  }

  // MARK: Plumbing shared with the async sequence

  func connect(
    _ channel: UpdateChannel<CMMotionActivity>, sink: UpdateChannel<CMMotionActivity>.Sink
  ) {
    if let error = serviceError { return channel.refuse(error, sink: sink) }
    let backend = backend
    // The activity the opening update gave. The history appends a change before it dispatches
    // it, so a start between the two reads the change as the activity in force and then gets it
    // live as well: delivered twice, where Apple gives the current activity and then only
    // changes. Both decisions are made under the channel's lock, in hand-over order.
    let opening = Locked<ActivityRecord?>(nil)
    let generation = channel.connect(to: backend, sink: sink, holdingFinish: true) {
      event, generation in
      switch event {
      case .activity(let record):
        channel.offer(timestamp: record.timestamp, generation: generation) {
          opening.withLock { $0 == record } ? nil : Self.activity(record)
        }
      case .finished:
        channel.finish(generation: generation)
      case .failure(let failure):
        channel.report(failure, generation: generation)
      default:
        break
      }
    }
    // The activity in force now; dropped by the channel if a change went out first.
    if let current = backend.currentActivity {
      channel.deliverOpening(generation: generation) {
        opening.withLock { $0 = current }
        return Self.activity(current)
      }
    }
    channel.releaseFinish(generation: generation)
  }

  /// The API object for `record`.
  static func activity(_ record: ActivityRecord) -> CMMotionActivity {
    let e = record.estimate
    let confidence = CMMotionActivityConfidence(rawValue: e.confidence.rawValue) ?? .low
    return CMMotionActivity(
      stationary: e.stationary, walking: e.walking, running: e.running, automotive: e.automotive,
      cycling: e.cycling, unknown: e.unknown, confidence: confidence, startDate: record.date,
      timestamp: record.timestamp)
  }
}
