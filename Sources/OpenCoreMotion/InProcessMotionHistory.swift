// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionDetectors
import MotionMath
import MotionSensors

/// The motion history of one sensor source, observed inside this process: runs the pedometer
/// tracker (steps, riding gate, activity) and the barometer tracker on every sample and keeps
/// what they find.
///
/// Observation starts when the history is created (the first pedometer, activity manager,
/// altimeter or sensor recorder of the source) and lasts as long as the process: queries answer
/// from what this process observed since then, not from a system-wide history (that is the
/// daemon-backed backend's job). Steps, floors, activities and altitudes (one reading per second)
/// are kept for 7 days, recorded accelerometer samples for 3 days and at most 12 h of them
/// (``Parameters``).
package final class InProcessMotionHistory: MotionHistoryBackend, @unchecked Sendable {
  // @unchecked: `state` is behind its lock; `deliveryLock` serialises deliveries to subscribers;
  // the other stored properties are immutable.

  /// Limits and timings of the history.
  package struct Parameters: Sendable, Equatable {
    /// Time without a step after which walking is considered paused, s.
    package var pauseDelay: Double = 2
    /// How much longer than ``pauseDelay`` a pause may wait for a step the detector has not
    /// decided yet (``PedometerTracker/earliestUndecidedStep``), s: a bound, so that no pause is
    /// withheld for good. A new bout's first step is confirmed at most about 3.6 s after it (four
    /// steps at the slowest walking cadence), and such a step is less than the pause delay after
    /// the last one.
    package var undecidedStepWait: Double = 4
    /// How long steps, floors and activities are kept, s (7 days, as Apple).
    package var retention: Double = 7 * 86_400
    /// How long recorded accelerometer samples are kept, s (3 days, as Apple).
    package var recordingRetention: Double = 3 * 86_400
    /// The most recorded accelerometer samples kept: 12 h at 50 Hz (a bound on memory; Apple keeps
    /// 3 days on disk).
    package var recordingCapacity: Int = 12 * 3600 * 50
    /// The recorder's sample rate, Hz.
    package var recordingRate: Double = 50
    /// The longest recording request, s (12 h).
    package var longestRecording: Double = 43_200
    /// Seconds between two barometer readings kept in the altitude history.
    package var altitudeHistoryInterval: Double = 1
    /// The most barometer readings kept: 7 days at one per second.
    package var altitudeHistoryCapacity: Int = 7 * 86_400
    /// Steps whose spacing sets the current cadence.
    package var cadenceSteps: Int = 8
    /// Cadence used for the stride of the first step of a bout, steps/s.
    package var nominalCadence: Double = 1.8
    /// The user's height for the stride model, m (`nil`: the model's default).
    package var userHeight: Double?

    package init() {}
  }

  package let source: any SensorSource
  package let parameters: Parameters
  package var name: String { source.name }
  package var availableSensors: SensorSet { source.availableSensors }
  package var countsFloors: Bool {
    PressureAltitudeAdapter.countsFloors && source.availableSensors.contains(.barometer)
  }

  private struct State {
    var timeline: MotionTimeline?
    var latestTimestamp: Double?
    /// Steps (a ride's left out) and the activity (``PedometerTracker``).
    var pedometer = PedometerTracker()
    var pressure = BarometerTracker()
    var ledger: StepLedger
    var activities: [ActivityRecord] = []
    /// Each step's cadence and length, from the last steps of the current bout.
    var cadence: StepCadence
    var lastStepTime: Double?
    /// When the last step was reported (source time, s); pauses are judged from it, so that the
    /// detector's confirmation delay cannot cause a pause in the middle of a walk.
    var lastStepReport: Double?
    /// When the last pause event went out: a walk's first steps that the riding gate held and
    /// then gave back are older than it, and the resume must not be dated before the pause.
    var lastPauseDate: Date?
    var isWalking = false
    /// Times the source's clock restarted lower (see ``beginTimeline(at:in:events:)``).
    var timelineRestarts = PowerOfTenReports()
    /// A sample far ahead of the latest one, held until the next sample says whether the clock
    /// moved on (it is not earlier) or the sample was stamped wrong (see ``observe(_:in:events:)``).
    var aheadSample: MotionSample?
    /// Samples stamped far ahead of the clock and left out.
    var samplesStampedAhead = PowerOfTenReports()
    /// A sample far behind the latest one, held until the next sample says whether the source's
    /// clock restarted lower (it is far behind too, and not before this one) or the sample was
    /// stamped wrong (see ``observe(_:in:events:)``).
    var behindSample: MotionSample?
    /// Samples stamped far behind the clock and left out.
    var samplesStampedBehind = PowerOfTenReports()
    /// Barometer readings the tracker refused, as far as reported.
    var refusedPressureReports = PowerOfTenReports()
    var recordUntil: Date?
    var pendingRecordingDuration: Double?
    var recordingDecimator: UpdateDecimator
    var recorded: DatedRecordBuffer<AccelerometerRecord>
    var altitudeDecimator = UpdateDecimator(nominalSourcePeriod: 0.01)
    var altitudes: DatedRecordBuffer<AltitudeRecord>
    var nextRecordIdentifier: UInt64 = 1
    var subscribers: [UInt64: @Sendable (MotionHistoryEvent) -> Void] = [:]
    var nextSubscriberID: UInt64 = 0
    var isFinished = false
    /// Whether the system's wall clock was set since the dates were anchored.
    var clockWatch = WallClockStepWatch()
    /// The source time of the last look at the wall clock, s.
    var lastClockCheck: Double?
    /// The boot clock at the last look at the wall clock, s.
    var lastClockCheckBoot: Double?
    /// Times the wall clock was set, as far as reported.
    var clockSteps = PowerOfTenReports(reportingEachUpTo: 10)
  }

  private let state: Locked<State>
  private let deliveryLock = NSRecursiveLock()
  private let sourceSubscription = Locked<SourceSubscription?>(nil)
  private let readClocks: ClockReading

  /// Reads the wall clock and the boot clock (s) together.
  package typealias ClockReading = @Sendable () -> (wall: Date, boot: Double)

  /// The system's clocks: `Date()` and `CLOCK_BOOTTIME`.
  package static let systemClocks: ClockReading = { (Date(), BootClock.now) }
  /// The start altitude given last, m, the pressure it was read at, kPa, and when (see
  /// ``pressure(atStartAltitude:reading:date:)``).
  private let startAltitudeAnchor = Locked<(altitude: Double, pressure: Double, date: Date)?>(nil)

  /// How long a start altitude's anchor is kept, s. Weather moves the pressure by about 1 hPa in
  /// 3 hours (about 3 m an hour of apparent climb), so after an hour the anchor is no better than
  /// the altitude given, and a board left at one place for days would otherwise drift without
  /// end.
  package static let startAltitudeAnchorLifetime: Double = 3600

  /// Creates the history of `source` and starts observing it, unless `startsObserving` is false
  /// (then ``startObserving()`` does, once the live subscribers are in place: a source played as
  /// fast as possible would otherwise run ahead of them). `timeline` fixes the dates of the
  /// source's timestamps (tests); `nil` anchors them at the first sample. `clocks` are the
  /// clocks that anchor and follow the dates (tests set the wall clock).
  package init(
    source: any SensorSource, parameters: Parameters = Parameters(),
    timeline: MotionTimeline? = nil,
    startsObserving: Bool = true,
    clocks: @escaping ClockReading = InProcessMotionHistory.systemClocks
  ) {
    self.source = source
    self.parameters = parameters
    self.readClocks = clocks
    state = Locked(
      State(
        timeline: timeline,
        ledger: StepLedger(activeGapLimit: parameters.pauseDelay, retention: parameters.retention),
        cadence: StepCadence(
          parameters: StepCadence.Parameters(
            stepsKept: parameters.cadenceSteps, boutGap: parameters.pauseDelay,
            nominalCadence: parameters.nominalCadence),
          strideModel: StrideModel(userHeight: parameters.userHeight)),
        recordingDecimator: UpdateDecimator(nominalSourcePeriod: source.shortestSamplePeriod),
        recorded: DatedRecordBuffer(capacity: parameters.recordingCapacity),
        altitudes: DatedRecordBuffer(capacity: parameters.altitudeHistoryCapacity)))
    if startsObserving { startObserving() }
  }

  /// Starts observing the source (once; later calls do nothing).
  package func startObserving() {
    let isFirst = sourceSubscription.withLock { s -> Bool in
      defer { if s == nil { s = SourceSubscription(onCancel: {}) } }
      return s == nil
    }
    guard isFirst else { return }
    // The detectors want every sample; 100 Hz is enough for steps and activity. Steps, activity
    // and recording read the accelerometer (steps the gyroscope too, where there is one), floors
    // and altitude the barometer: a source that can switch sensors off keeps the magnetometer
    // off for the history's sake.
    let subscription = source.subscribe(
      requestedSampleRate: Swift.min(100, source.supportedSampleRates.upperBound),
      sensors: Self.sensorsRead
    ) { [weak self] event in self?.handle(event) }
    sourceSubscription.withLock { $0 = subscription }
  }

  /// The sensors the history reads.
  package static let sensorsRead: SensorSet = [.accelerometer, .gyroscope, .barometer]

  deinit {
    sourceSubscription.withLock { $0 }?.cancel()
  }

  // MARK: Sharing

  private static let registry = Locked<[ObjectIdentifier: InProcessMotionHistory]>([:])

  /// The history of `source`, shared by every API object of that source for the life of the
  /// process (the history must outlive the objects that asked for it).
  package static func shared(for source: any SensorSource) -> InProcessMotionHistory {
    registry.withLock { table in
      let key = ObjectIdentifier(source)
      if let existing = table[key], existing.source === source { return existing }
      let history = InProcessMotionHistory(source: source)
      table[key] = history
      return history
    }
  }

  // MARK: Queries

  package func pedometerSummary(from start: Date, to end: Date) -> PedometerSummary {
    let countsFloors = countsFloors
    return state.withLock { s in
      // The current cadence is judged no later than the detector's clock (see `StepLedger`).
      let observed = s.latestTimestamp.flatMap { s.timeline?.date(forTimestamp: $0) }
      return s.ledger.summary(
        from: start, to: end, countsFloors: countsFloors, observedUntil: observed,
        keptSince: keptSince(parameters.retention, in: s))
    }
  }

  /// The history's now: the date of the source time of the last look at the clocks, moved on by
  /// the boot clock since (`nil` before the first sample). A history whose source stopped still
  /// ages; its dates stay on the history's own timeline (a test's fixed one included).
  private func now(in s: State) -> Date? {
    guard let timeline = s.timeline, let check = s.lastClockCheck, let boot = s.lastClockCheckBoot
    else { return nil }
    let elapsed = readClocks().boot - boot
    return timeline.date(forTimestamp: check).addingTimeInterval(
      elapsed.isFinite ? Swift.max(0, elapsed) : 0)
  }

  /// The oldest date a query answers for, `retention` s before the history's now: entries are
  /// dropped only when newer ones arrive, so without new data a query would find a recording of
  /// 4 days ago, or steps of 8 days ago (Apple keeps 3 and 7 days, and so do our docs).
  private func keptSince(_ retention: Double, in s: State) -> Date? {
    now(in: s)?.addingTimeInterval(-retention)
  }

  package func activities(from start: Date, to end: Date) -> [ActivityRecord] {
    guard start <= end else { return [] }
    return state.withLock { s in
      // Nothing older than the retention (see ``keptSince(_:in:)``).
      let start = Swift.max(start, keptSince(parameters.retention, in: s) ?? start)
      guard start <= end else { return [] }
      // Nothing is known of a window that begins after the latest sample: the activity in
      // force now may have ended by then (Apple answers such a window with no activity).
      if let latest = s.latestTimestamp, let timeline = s.timeline,
        start > timeline.date(forTimestamp: latest)
      {
        return []
      }
      // The activity in force at `start` is the last one that began at or before it.
      let inForce = s.activities.lastIndex { $0.date <= start }
      let first = inForce ?? s.activities.firstIndex { $0.date >= start } ?? s.activities.count
      return s.activities[first...].prefix { $0.date <= end }.map { $0 }
    }
  }

  package var currentActivity: ActivityRecord? { state.withLock { $0.activities.last } }

  package func recordAccelerometer(forDuration duration: TimeInterval) {
    guard duration.isFinite, duration > 0 else { return }
    let length = Swift.min(duration, parameters.longestRecording)
    state.withLock { s in
      guard let timeline = s.timeline, let latest = s.latestTimestamp else {
        // Nothing observed yet: the recording starts with the first sample.
        s.pendingRecordingDuration = Swift.max(s.pendingRecordingDuration ?? 0, length)
        return
      }
      // From now, not from the latest sample: in a gap in the source that sample is in the
      // past, and a recording timed from it could be over before the samples come again. Not
      // before it either: a source played faster than real time runs ahead of the boot clock.
      let from = Swift.max(timeline.date(forTimestamp: latest), now(in: s) ?? .distantPast)
      let until = from.addingTimeInterval(length)
      s.recordUntil = Swift.max(s.recordUntil ?? until, until)
    }
  }

  package func altitudes(from start: Date, to end: Date) -> [AltitudeRecord] {
    state.withLock { $0.altitudes.records(from: start, to: end) }
  }

  package func recordedAccelerometer(from start: Date, to end: Date) -> [AccelerometerRecord] {
    state.withLock { s in
      // Nothing older than the recording retention (see ``keptSince(_:in:)``).
      let start = Swift.max(start, keptSince(parameters.recordingRetention, in: s) ?? start)
      return start <= end ? s.recorded.records(from: start, to: end) : []
    }
  }

  package func pressure(
    atStartAltitude altitude: Double, reading pressure: Double, date: Date
  ) -> Double {
    startAltitudeAnchor.withLock { anchor in
      if let anchor, anchor.altitude == altitude,
        (0...Self.startAltitudeAnchorLifetime).contains(date.timeIntervalSince(anchor.date))
      {
        return anchor.pressure
      }
      anchor = (altitude, pressure, date)
      return pressure
    }
  }

  /// The date of the source timestamp `timestamp`, once the timeline is known.
  package func date(forTimestamp timestamp: Double) -> Date? {
    state.withLock { $0.timeline?.date(forTimestamp: timestamp) }
  }

  /// The source timestamp of `date`, once the timeline is known.
  package func timestamp(for date: Date) -> Double? {
    state.withLock { $0.timeline?.timestamp(for: date) }
  }

  /// The date of the latest sample observed, if any.
  package var latestSampleDate: Date? {
    state.withLock { s in s.latestTimestamp.flatMap { s.timeline?.date(forTimestamp: $0) } }
  }

  // MARK: Live events

  package func subscribe(
    _ handler: @escaping @Sendable (MotionHistoryEvent) -> Void
  ) -> SourceSubscription {
    let (id, isFinished) = state.withLock { s -> (UInt64, Bool) in
      s.nextSubscriberID &+= 1
      if !s.isFinished { s.subscribers[s.nextSubscriberID] = handler }
      return (s.nextSubscriberID, s.isFinished)
    }
    if isFinished { handler(.finished) }
    return SourceSubscription { [weak self] in
      guard let self else { return }
      // Taking the delivery lock waits for a delivery in progress to this subscriber.
      deliveryLock.lock()
      defer { deliveryLock.unlock() }
      _ = state.withLock { $0.subscribers.removeValue(forKey: id) }
    }
  }

  // MARK: Observation

  private func handle(_ event: SourceEvent) {
    var events: [MotionHistoryEvent] = []
    switch event {
    case .sample(let sample):
      guard sample.timestamp.isFinite else { return }
      state.withLock { s in
        // A sample after the end: the source is live again (a motion daemon that finished its
        // replay and restarted, and the client resubscribed). Left finished, every later
        // subscriber was told `.finished` at once, and no new update got a live event.
        s.isFinished = false
        observe(sample, in: &s, events: &events)
      }
    case .failure(let failure):
      events.append(.failure(failure))
    case .finished:
      state.withLock { s in
        // The last sample, after a gap: nothing came to say it was stamped wrong.
        if let ahead = s.aheadSample {
          s.aheadSample = nil
          observeInOrder(ahead, in: &s, events: &events)
        }
        // The last sample, far behind: one sample of a restarted clock is not worth a new
        // timeline that a stale stamp would date everything after from (a source that comes
        // back goes on from the old one).
        if s.behindSample != nil {
          s.behindSample = nil
          noteSampleStampedBehind(in: &s)
        }
        // The steps the pedometer still holds are counted, as `motionctl steps` and the daemon
        // (at its stop) count them at the end of a recording: those the step detector has
        // confirmed and not yet returned (one goes out per sample), and those the riding gate
        // holds while a walk after a ride is confirmed. A replay that ended seconds after a
        // drive counted fewer steps here than `motionctl steps` on the same file.
        if let latest = s.latestTimestamp, let timeline = s.timeline {
          while s.pedometer.flushQueuedStep() != nil {
            countStepsLetThrough(at: latest, timeline: timeline, in: &s, events: &events)
          }
          s.pedometer.finish()
          countStepsLetThrough(at: latest, timeline: timeline, in: &s, events: &events)
        }
        // A walk still in progress when the source ends (a recording or scenario that stops
        // less than the pause delay after its last step): no later sample will judge its pause,
        // and event updates ended on the resume, as if the person walked on. It pauses at the
        // last sample at the latest.
        if s.isWalking, let latest = s.latestTimestamp, let timeline = s.timeline {
          pauseWalk(at: latest, timeline: timeline, in: &s, events: &events)
        }
        s.isFinished = true
      }
      events.append(.finished)
    }
    guard !events.isEmpty else { return }
    deliveryLock.lock()
    defer { deliveryLock.unlock() }
    for event in events {
      // Read per event: a subscriber may cancel another from its handler.
      let subscribers = state.withLock { s in s.subscribers.sorted { $0.key < $1.key }.map(\.value)
      }
      for subscriber in subscribers { subscriber(event) }
      if case .finished = event { state.withLock { $0.subscribers.removeAll() } }
    }
  }

  /// Observes `sample`, unless it is stamped far ahead of the latest one
  /// (``largestForwardStep``): then it waits for the next sample. A next sample not earlier than
  /// it means the clock moved on (a gap in the stream), and both are observed in turn; an earlier
  /// one means the sample was stamped wrong, and it is left out (counted, logged). Observed at
  /// once, one sample stamped 1e9 s dated the history's records 31 years ahead, and every later
  /// record after them.
  ///
  /// A sample far behind the latest one (``timelineTolerance``) waits too: a next sample also far
  /// behind the latest one, and not before it, means the source's clock restarted lower, and both
  /// are observed on a new timeline; any other means the sample was stamped wrong, and it is left
  /// out (counted, logged). Taken at once for a restart, one stale stamp (t = 0 in a stream at
  /// t = 500) began a timeline dated from now at 0, and every later sample was dated 500 s ahead
  /// for good, while the detectors restarted for nothing.
  private func observe(
    _ sample: MotionSample, in s: inout State, events: inout [MotionHistoryEvent]
  ) {
    if let behind = s.behindSample {
      s.behindSample = nil
      if let latest = s.latestTimestamp, latest - sample.timestamp > Self.timelineTolerance,
        sample.timestamp >= behind.timestamp
      {
        // The clock restarted: `behind` begins the new timeline, and `sample` goes on from it.
        observeInOrder(behind, in: &s, events: &events)
      } else {
        noteSampleStampedBehind(in: &s)
      }
    }
    if let latest = s.latestTimestamp, latest - sample.timestamp > Self.timelineTolerance {
      if s.aheadSample != nil {
        s.aheadSample = nil
        noteSampleStampedAhead(in: &s)
      }
      s.behindSample = sample
      return
    }
    if let latest = s.latestTimestamp, sample.timestamp - latest > Self.largestForwardStep {
      if let ahead = s.aheadSample, sample.timestamp >= ahead.timestamp {
        s.aheadSample = nil
        observeInOrder(ahead, in: &s, events: &events)
        observeInOrder(sample, in: &s, events: &events)
      } else {
        if s.aheadSample != nil { noteSampleStampedAhead(in: &s) }
        s.aheadSample = sample
      }
      return
    }
    if s.aheadSample != nil {
      s.aheadSample = nil
      noteSampleStampedAhead(in: &s)
    }
    observeInOrder(sample, in: &s, events: &events)
  }

  /// The largest step forward from the latest sample that is observed at once, s.
  static let largestForwardStep = 10.0

  private func noteSampleStampedAhead(in s: inout State) {
    if let total = s.samplesStampedAhead.count() {
      Logger.openCoreMotion.warning(
        "a sample stamped far ahead of the source's clock was left out of the motion history",
        metadata: ["source": "\(source.name)", "samples": "\(total)"])
    }
  }

  private func noteSampleStampedBehind(in s: inout State) {
    if let total = s.samplesStampedBehind.count() {
      Logger.openCoreMotion.warning(
        "a sample stamped far behind the source's clock was left out of the motion history",
        metadata: ["source": "\(source.name)", "samples": "\(total)"])
    }
  }

  private func observeInOrder(
    _ sample: MotionSample, in s: inout State, events: inout [MotionHistoryEvent]
  ) {
    let t = sample.timestamp
    if let latest = s.latestTimestamp, t < latest {
      // A little early: out of order; skip it and keep time monotonic. Far earlier: the source's
      // clock restarted, and skipping would stop every history service until it caught up.
      guard latest - t > Self.timelineTolerance else { return }
      beginTimeline(at: t, in: &s, events: &events)
    }
    let timeline = currentTimeline(at: t, in: &s)
    s.timeline = timeline
    s.latestTimestamp = t
    if let pending = s.pendingRecordingDuration {
      s.pendingRecordingDuration = nil
      s.recordUntil = timeline.date(forTimestamp: t).addingTimeInterval(pending)
    }

    if let rate = sample.gyroscope {
      // A limb's strides: the steps the accelerometer misses on stairs with the phone in a pocket.
      s.pedometer.process(time: t, rotationRate: rate)
    }
    if let force = sample.accelerometer, force.isFinite {
      // The one conversion to Core Motion's units and sign for everything below.
      let acceleration = Units.coreMotionAcceleration(fromSpecificForce: force)
      let change = s.pedometer.process(time: t, acceleration: acceleration).activity
      observeActivity(change, t: t, timeline: timeline, in: &s, events: &events)
      countStepsLetThrough(at: t, timeline: timeline, in: &s, events: &events)
      record(t: t, acceleration: acceleration, timeline: timeline, in: &s)
    }
    // Pauses are judged on every sample's time, whichever sensors it carries.
    if s.isWalking, let report = s.lastStepReport, t - report >= parameters.pauseDelay,
      !awaitsUndecidedStep(at: t, lastReport: report, in: s)
    {
      pauseWalk(at: t, timeline: timeline, in: &s, events: &events)
    }
    let refusedBefore = s.pressure.refusedReadings
    if let pressure = sample.pressure, let result = s.pressure.process(time: t, pressure: pressure)
    {
      let date = timeline.date(forTimestamp: t)
      let record = AltitudeRecord(
        timestamp: t, date: date, pressure: result.pressure, altitude: result.altitude)
      if s.altitudeDecimator.accept(t, interval: parameters.altitudeHistoryInterval) {
        s.altitudes.append(record)
      }
      events.append(.altitude(record))
      if let floors = result.floors, floors.ascended > 0 || floors.descended > 0 {
        // Filed when they were walked: floors that late steps showed to be walked are dated
        // where their change settled, usually a minute or so before this reading (never after
        // it; see `FloorCounter.Change.time`).
        let record = FloorRecord(
          date: timeline.date(forTimestamp: floors.time), ascended: floors.ascended,
          descended: floors.descended, countedDate: date)
        s.ledger.append(record)
        events.append(.floors(record))
      }
    } else if s.pressure.refusedReadings != refusedBefore {
      // Counted, never silent, never a flood.
      let refused = s.pressure.refusedReadings
      if s.refusedPressureReports.isDue(total: refused) {
        Logger.openCoreMotion.warning(
          "barometer readings outside 1–200 kPa are left out of the altitude and floors",
          metadata: ["refused": "\(refused)", "latest": "\(sample.pressure ?? .nan) kPa"])
      }
    }
  }

  /// How much earlier than the latest sample a sample may be stamped and still be taken as out of
  /// order (and skipped), s; an earlier one starts a new timeline. The detectors below draw their
  /// own lines near it (`RelativeAltitudeFilter` at 1 s; `FloorCounter` at its gap limit, 4 s,
  /// joining a reading up to that early to its bin in progress).
  static let timelineTolerance = 1.0

  /// Seconds of source time between two looks at the wall clock.
  static let clockCheckInterval = 1.0

  /// The timeline of a sample at `t`: anchored at the wall clock's "now" at the first sample, and
  /// moved with the wall clock when the system's clock was set (``WallClockStepWatch``, looked
  /// at once a second of source time). Set forward, everything kept moves with it (its dates
  /// were the wrong clock's), so that updates and queries for today find the steps taken before
  /// and after, and an update started before the step keeps counting. Set back, dates go on from
  /// the last one given out, so the history stays in date order (and runs ahead of the wall clock
  /// by up to the step).
  private func currentTimeline(at t: Double, in s: inout State) -> MotionTimeline {
    guard let timeline = s.timeline else {
      let clocks = readClocks()
      _ = s.clockWatch.step(wall: clocks.wall, boot: clocks.boot)
      s.lastClockCheck = t
      s.lastClockCheckBoot = clocks.boot
      return MotionTimeline(referenceDate: clocks.wall, referenceTimestamp: t)
    }
    // A source clock that restarted lower is also due a look.
    if let last = s.lastClockCheck, Swift.abs(t - last) < Self.clockCheckInterval {
      return timeline
    }
    s.lastClockCheck = t
    let clocks = readClocks()
    s.lastClockCheckBoot = clocks.boot
    guard let step = s.clockWatch.step(wall: clocks.wall, boot: clocks.boot) else {
      return timeline
    }
    let current = timeline.date(forTimestamp: t)
    let move: Double
    if step > 0 {
      // What is kept moves with the clock: the old dates were the wrong clock's, and kept
      // there a step of years would have pruned them as older than 7 days at the next step
      // counted (an update started before the step would have gone back to about 1 step).
      move = step
      shiftDates(by: move, in: &s)
    } else {
      // Set back, records and the updates already delivered stay where they are, and dates go
      // on from the last one given out.
      let lastDate = timeline.date(forTimestamp: s.latestTimestamp ?? t)
      move = Swift.max(current.addingTimeInterval(step), lastDate).timeIntervalSince(current)
      // A recording asked for a duration keeps its length.
      s.recordUntil = s.recordUntil?.addingTimeInterval(move)
    }
    noteClockStep(step, in: &s)
    return MotionTimeline(referenceDate: current.addingTimeInterval(move), referenceTimestamp: t)
  }

  /// Moves the dates of everything the history keeps by `seconds`: the system clock was set
  /// forward, and they were the wrong clock's.
  private func shiftDates(by seconds: Double, in s: inout State) {
    s.ledger.shiftDates(by: seconds)
    for index in s.activities.indices { s.activities[index].date.addTimeInterval(seconds) }
    s.recorded.shiftDates(by: seconds)
    s.altitudes.shiftDates(by: seconds)
    s.lastPauseDate = s.lastPauseDate?.addingTimeInterval(seconds)
    // A recording asked for a duration keeps its length.
    s.recordUntil = s.recordUntil?.addingTimeInterval(seconds)
  }

  private func noteClockStep(_ step: Double, in s: inout State) {
    if let total = s.clockSteps.count() {
      Logger.openCoreMotion.notice(
        "the system clock was set; the motion history's dates follow it from now on",
        metadata: [
          "source": "\(source.name)", "step": "\(step) s", "times": "\(total)",
        ])
    }
  }

  /// Continues the history on a source clock that restarted lower at `t` (a daemon or a
  /// simulation started again, a phone stream that reconnected): dates go on from the later of
  /// the last sample's date and now, so the history stays in date order (a sample stamped far
  /// ahead never became the last one: see ``observe(_:in:events:)``), and a walk in progress
  /// pauses there (its steps were on the old clock). The detectors start their own timelines on
  /// the same sample. Before, every sample until the new clock passed the old one was taken as
  /// out of order: steps, activity, altitude and floors stopped without an error.
  private func beginTimeline(
    at t: Double, in s: inout State, events: inout [MotionHistoryEvent]
  ) {
    guard let old = s.timeline, let latest = s.latestTimestamp else { return }
    var lastDate = old.date(forTimestamp: latest)
    // "Now" from the clocks the watch reads, and the watch anchored at it: a clock set while
    // the source was away is in this date already, and must not be applied again. Set forward,
    // what is kept moves with it, as in ``currentTimeline(at:in:)``.
    let clocks = readClocks()
    if let step = s.clockWatch.step(wall: clocks.wall, boot: clocks.boot) {
      if step > 0 {
        shiftDates(by: step, in: &s)
        lastDate.addTimeInterval(step)
      }
      noteClockStep(step, in: &s)
    }
    s.lastClockCheck = t
    s.lastClockCheckBoot = clocks.boot
    s.timeline = MotionTimeline(
      referenceDate: Swift.max(lastDate, clocks.wall), referenceTimestamp: t)
    s.latestTimestamp = nil
    if s.isWalking {
      s.isWalking = false
      s.lastPauseDate = lastDate
      events.append(.pedestrian(PedestrianEventRecord(date: lastDate, isPause: true)))
    }
    s.cadence.endBout()
    s.lastStepTime = nil
    s.lastStepReport = nil
    // A source whose clock keeps jumping back is reported without flooding the log.
    if let restarts = s.timelineRestarts.count() {
      Logger.openCoreMotion.warning(
        "the source's clock restarted lower; the motion history continues on the new clock",
        metadata: [
          "source": "\(source.name)", "from": "\(latest) s", "to": "\(t) s",
          "restarts": "\(restarts)",
        ])
    }
  }

  /// Whether a pause due at sample time `t` waits for a peak the step detector still holds: one
  /// less than the pause delay after the last step may continue the walk. The detector drops out
  /// of a bout now and then in the middle of a walk and reports the next bout's first steps late,
  /// so the time since the last report exceeded the pause delay where the steps' own times never
  /// did, and event updates showed a pause and a resume at the same date. Once the peak is
  /// decided (its steps counted, or dropped) the pause is judged as before, dated as before; it
  /// waits at most ``Parameters/undecidedStepWait`` longer.
  private func awaitsUndecidedStep(at t: Double, lastReport report: Double, in s: State) -> Bool {
    guard let undecided = s.pedometer.earliestUndecidedStep, let last = s.lastStepTime else {
      return false
    }
    return undecided < last + parameters.pauseDelay
      && t - report < parameters.pauseDelay + parameters.undecidedStepWait
  }

  /// Ends the walk in progress at sample time `t`.
  private func pauseWalk(
    at t: Double, timeline: MotionTimeline, in s: inout State, events: inout [MotionHistoryEvent]
  ) {
    s.isWalking = false
    s.cadence.endBout()
    // Dated when the walk stopped, not at this sample: after a gap in the source (an hour
    // without samples), the event stream showed an hour-long walk. The pause delay after the
    // last step itself, not after its report: a step is reported up to seconds after it (a
    // bout's first ones, the gyroscope's hidden steps), and a pause dated from the report could
    // come after the next step, whose resume then had the pause's date (2026-12-02: 4 of 6 such
    // pairs on MotionSense). Never before the last step. (A walk always has one: the step that
    // began it set it.)
    let lastStep = s.lastStepTime ?? t
    let stopped = Swift.min(t, lastStep + parameters.pauseDelay)
    let pauseDate = timeline.date(forTimestamp: Swift.max(stopped, lastStep))
    s.lastPauseDate = pauseDate
    events.append(.pedestrian(PedestrianEventRecord(date: pauseDate, isPause: true)))
  }

  /// Counts every step the riding gate lets through now, at sample time `t`.
  private func countStepsLetThrough(
    at t: Double, timeline: MotionTimeline, in s: inout State, events: inout [MotionHistoryEvent]
  ) {
    while let step = s.pedometer.nextStep() {
      countStep(reported: step, t: t, timeline: timeline, in: &s, events: &events)
    }
  }

  /// Counts a step the detector found at `reported` and the riding gate let through, at sample
  /// time `t`.
  private func countStep(
    reported: Double, t: Double, timeline: MotionTimeline, in s: inout State,
    events: inout [MotionHistoryEvent]
  ) {
    // Keep the step times in order and never in the future.
    let stepTime = Swift.min(t, Swift.max(reported, s.lastStepTime ?? reported))
    let stepDate = timeline.date(forTimestamp: stepTime)
    if !s.isWalking {
      s.isWalking = true
      let resumeDate = s.lastPauseDate.map { Swift.max($0, stepDate) } ?? stepDate
      events.append(.pedestrian(PedestrianEventRecord(date: resumeDate, isPause: false)))
    }
    let step = s.cadence.noteStep(at: stepTime)
    let record = StepRecord(date: stepDate, timestamp: stepTime, distance: step.length)
    s.ledger.append(record, cadence: step.cadence, reportedDate: timeline.date(forTimestamp: t))
    s.pressure.noteStep(time: stepTime)
    s.lastStepTime = stepTime
    s.lastStepReport = t
    events.append(.step(record))
  }

  /// Records the activity in force: the classifier's `change` at sample time `t`, or at the first
  /// sample the one it reports before any change.
  private func observeActivity(
    _ change: ActivityEstimate?, t: Double, timeline: MotionTimeline, in s: inout State,
    events: inout [MotionHistoryEvent]
  ) {
    var estimate = change
    if estimate == nil, s.activities.isEmpty {
      // The activity at the start of observation, so that there is always one in force.
      var initial = s.pedometer.currentActivity
      initial.startTime = t
      estimate = initial
    }
    guard var estimate else { return }
    // Activities start in order and not in the future.
    let start = Swift.min(
      t,
      Swift.max(
        estimate.startTime.isFinite ? estimate.startTime : t,
        s.activities.last?.timestamp ?? -.infinity))
    estimate.startTime = start
    let record = ActivityRecord(
      estimate: estimate, date: timeline.date(forTimestamp: start), timestamp: start)
    s.activities.append(record)
    let limit = record.date.addingTimeInterval(-parameters.retention)
    if s.activities.count > 1, s.activities[0].date < limit.addingTimeInterval(-3600) {
      // Keep the one in force at the limit.
      let firstKept = Swift.max(0, (s.activities.lastIndex { $0.date <= limit } ?? 0))
      s.activities.removeFirst(firstKept)
    }
    events.append(.activity(record))
  }

  private func record(
    t: Double, acceleration: SIMD3<Double>, timeline: MotionTimeline, in s: inout State
  ) {
    guard let until = s.recordUntil else { return }
    let date = timeline.date(forTimestamp: t)
    guard date <= until else {
      s.recordUntil = nil
      return
    }
    guard s.recordingDecimator.accept(t, interval: 1 / parameters.recordingRate) else { return }
    s.recorded.append(
      AccelerometerRecord(
        identifier: s.nextRecordIdentifier, timestamp: t, date: date, acceleration: acceleration))
    s.nextRecordIdentifier &+= 1
    let retentionLimit = date.addingTimeInterval(-parameters.recordingRetention)
    if let oldest = s.recorded.oldestDate, oldest < retentionLimit.addingTimeInterval(-3600) {
      s.recorded.removeRecords(before: retentionLimit)
    }
  }
}
