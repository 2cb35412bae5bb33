// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionDaemonProtocol
import MotionDetectors
import MotionMath
import MotionSensors
import OpenCoreMotion

/// Runs the pedometer tracker (steps, riding gate, activity) and the barometer tracker on every
/// source sample, keeps the live pedometer/activity/altitude state, and writes the history:
/// per-minute step rows, activity changes and (while a recording is requested) the accelerometer
/// at 50 Hz.
///
/// Samples arrive on the source's delivery thread and only touch memory; a writer thread commits
/// the gathered batch every ``flushInterval`` (so a `kill -9` loses at most that much) and prunes
/// every ``pruneInterval``. When a write fails with `SQLITE_FULL` history pauses (live updates go
/// on), the batch is kept up to ``maximumPendingSamples`` recorded samples, and the write is
/// retried every ``retryInterval``. Any other write error is retried the same way, but after
/// ``reopenAfterFailedWrites`` failures in a row the store is closed and opened again: errors
/// like an I/O error or a corrupted page persist on the open connection, and used to pause the
/// history until the daemon restarted. A store file deleted or replaced while open is reopened
/// too (its writes would otherwise go on, into a file no one opens again).
final class HistoryService: @unchecked Sendable {
  // Sendable because every mutable property is in `state` (a Locked), `storeLock`-guarded or
  // (`hasTriedToOpen`) guarded by `firstOpenAttempt`; the store a query reads is kept open by
  // `closeLock`'s read side.
  enum Condition: Sendable, Equatable {
    case recording
    case paused(String)
    case denied
    case unavailable(String)

    var text: String {
      switch self {
      case .recording: return "recording"
      case .paused(let reason): return "paused: " + reason
      case .denied: return "denied"
      case .unavailable(let reason): return "unavailable: " + reason
      }
    }
  }

  struct Settings: Sendable {
    var directory: String
    var flushInterval = 1.0
    var pruneInterval = 3600.0
    var retryInterval = 5.0
    /// Write failures in a row (other than a full disk) after which the store is reopened.
    var reopenAfterFailedWrites = 3
    var recordingRate = 50.0
    var maximumPendingSamples = 50 * 600
    var maximumPageCount: Int?
  }

  private struct State {
    /// Steps (a ride's left out) and the activity: the same tracker `CMPedometer` and
    /// `CMMotionActivityManager` run in process.
    var pedometer = PedometerTracker()
    /// Relative altitude and walked floors: the same tracker `CMAltimeter` and `CMPedometer` run
    /// in process, so an app gets the same figures whether it reads the daemon or its sensors.
    var altitude = BarometerTracker()
    /// Each step's cadence and length: the rule `CMPedometer` applies in process.
    var stepCadence = StepCadence()
    var anchor = WallClockAnchor()
    var recorderDecimator = UpdateDecimator(nominalSourcePeriod: 0)
    var lastStepTime: Double?
    /// The latest sample's timestamp (source clock, s) and date (s since 1970): where steps the
    /// pedometer still holds are filed when the daemon stops.
    var latestSample: (timestamp: Double, date: Double)?
    /// The latest step's cadence, steps/s (0 for a bout's first step: not known yet).
    var cadence = 0.0
    var steps: UInt64 = 0
    var distance = 0.0
    /// s spent stepping since the daemon started counting.
    var activeSeconds = 0.0
    var lastFloorsAscended: UInt64 = 0
    var lastFloorsDescended: UInt64 = 0
    var lastAltitudeUpdate = -Double.infinity
    var pending = HistoryBatch()
    var droppedSamples: UInt64 = 0
    var recordingUntil = 0.0
    var nextIdentifier: UInt64 = 0
    var condition = Condition.unavailable("being opened")
    /// Whether the denial in force has its marker on disk (read there, or written by this
    /// daemon): only then does the marker's removal mean that the user allowed history through
    /// another daemon. A denial whose marker could not be written holds until this one restarts.
    var denialIsOnDisk = false
    var isStopping = false
    var store: HistoryStore?
    /// Whether the last attempt to open the store failed and was logged (later attempts of the
    /// same episode log at debug level only).
    var openFailureLogged = false
    /// Write failures in a row, other than a full disk, since the last write that succeeded.
    var failedWrites = 0
    /// Whether the store was reopened for failed writes since the last write that succeeded
    /// (once per episode: an error that survives a reopen is waited out like a full disk).
    var reopenedForFailures = false
    /// The last activity change reported: filed again into a store reopened under way, which
    /// may be a new, empty file, so that it has the activity in force.
    var lastActivity: HistoryBatch.ActivityChange?
  }

  let settings: Settings
  private let logger: Logger
  private let state = Locked(State())
  /// Serialises store writes, prunes, privacy changes and closing (never taken on the delivery
  /// path).
  private let storeLock = NSLock()
  /// Queries hold the read side while they use the store; detaching and closing it (privacy
  /// denial, shutdown) takes the write side, so no query reads a closed store. Lock order:
  /// `storeLock` before `closeLock`.
  private let closeLock = ReadersWriterLock()
  private let wakeUp = NSCondition()
  /// Broadcast once ``start()`` has tried to open the store: queries wait for it (the daemon
  /// serves its clients while the store is opened, which takes seconds for a large one), so a
  /// query that comes as the daemon starts answers from the store, not "unavailable".
  private let firstOpenAttempt = NSCondition()
  /// Whether ``start()`` has tried to open the store (guarded by `firstOpenAttempt`).
  private var hasTriedToOpen = false
  /// The longest a query waits for the first attempt to open the store, s.
  static let firstOpenWait = 60.0

  /// The file whose presence means the user denied motion history.
  var denialMarkerPath: String { settings.directory + "/history-denied" }

  init(settings: Settings, logger: Logger) {
    self.settings = settings
    self.logger = logger
  }

  /// Called (on a queue of its own, no lock held) when this service finds a privacy choice it did
  /// not make, given through another daemon on the same state directory: a denial marker found
  /// when the store is opened again, or the marker of a denial in force gone (the writer thread
  /// looks at every flush). The daemon tells its clients then, as it does for a choice it serves.
  let onPrivacyChangeFoundOnDisk = Locked<(@Sendable () -> Void)?>(nil)

  private func tellOfPrivacyChangeFoundOnDisk() {
    if let tell = onPrivacyChangeFoundOnDisk.withLock({ $0 }) {
      DispatchQueue.global().async { tell() }
    }
  }

  // MARK: Life cycle

  /// Takes the user's denial of history into account, if the marker file says so; returns
  /// whether history is denied. Cheap (one file check): the daemon calls it before it serves, so
  /// that clients connecting while the store is opened are told the right authorization.
  @discardableResult
  func readDenial() -> Bool {
    guard FileManager.default.fileExists(atPath: denialMarkerPath) else { return false }
    // Samples that arrived before the denial was read are not history.
    state.withLock { s in
      Self.deny(&s)
      s.denialIsOnDisk = true
    }
    return true
  }

  /// Marks history denied and forgets what was observed: nothing observed before the denial
  /// reaches a store opened after it. Not the pending batch, nor the steps the pedometer holds,
  /// nor an activity the classifier reported already (a fresh one reports the activity in force
  /// again, so the new store has one), nor the unknown activity of a gap or a stop after the last
  /// sample before it.
  private static func deny(_ s: inout State) {
    s.condition = .denied
    s.pending = HistoryBatch()
    s.pedometer = PedometerTracker()
    s.lastActivity = nil
    s.latestSample = nil
  }

  /// Opens the store (unless history is denied) and starts the writer thread.
  func start() {
    storeLock.withLock { openStoreLocked() }
    firstOpenAttempt.withLock {
      hasTriedToOpen = true
      firstOpenAttempt.broadcast()
    }
    let thread = Thread { [self] in writerLoop() }
    thread.name = "motiond-history"
    thread.start()
  }

  private func openStoreLocked() {
    // The user may have denied history through another daemon on this state directory (one
    // that could not take the store's lock): it deleted the files and left the marker, and this
    // one, retrying or reopening the deleted file, would start a new history against the denial.
    let wasDenied = state.withLock { $0.condition == .denied }
    if readDenial() {
      logger.notice("motion history was denied by the user (\(denialMarkerPath)); not recording")
      if !wasDenied { tellOfPrivacyChangeFoundOnDisk() }
      return
    }
    do {
      let store = try HistoryStore.open(
        directory: settings.directory, maximumPageCount: settings.maximumPageCount, logger: logger)
      let identifier = (try? store.nextIdentifier()) ?? 0
      let until = (try? store.recordingUntil()) ?? 0
      let recovered = state.withLock { s -> Bool in
        s.store = store
        s.nextIdentifier = identifier
        // A store reopened under way may be a new file: a recording requested meanwhile goes on.
        s.recordingUntil = Swift.max(s.recordingUntil, until)
        s.condition = .recording
        defer { s.openFailureLogged = false }
        return s.openFailureLogged
      }
      if recovered {
        logger.notice("motion history available again at \(store.path)")
      } else {
        logger.info("motion history at \(store.path)")
      }
    } catch {
      let alreadyLogged = state.withLock { s -> Bool in
        s.condition = .unavailable("\(error)")
        defer { s.openFailureLogged = true }
        return s.openFailureLogged
      }
      if alreadyLogged {
        logger.debug("the motion history still cannot be opened: \(error)")
      } else {
        logger.error(
          "cannot open the motion history in \(settings.directory): \(error); retrying every \(settings.retryInterval) s"
        )
      }
    }
  }

  /// Writes what is pending and closes the store. The steps the pedometer still holds are counted
  /// first, as at the end of a recording: the one the step detector has queued, and those the
  /// riding gate holds while it confirms a walk (a walk's first seconds, or a stop's steps). A
  /// SIGTERM (logout, a service restart, an update) used to lose them.
  func stop() {
    state.withLock { s in
      if s.condition != .denied, !s.isStopping, let latest = s.latestSample {
        while s.pedometer.flushQueuedStep() != nil {}
        s.pedometer.finish()
        // Into the pending batch that the flush below writes (no client hears of them: the
        // daemon is stopping).
        _ = fileCountedSteps(&s, timestamp: latest.timestamp, date: latest.date)
        // Nothing is known of the time until the next start: the activity in force would
        // otherwise last through it (a daemon stopped while walking in the evening would show a
        // night of walking, and a query inside the gap would answer "walking").
        Self.fileUnknownActivity(&s, from: latest)
      }
      s.isStopping = true
    }
    wakeUp.withLock { wakeUp.broadcast() }
    storeLock.withLock {
      flushLocked()
      closeLock.withWriteLock {
        let store = state.withLock { s -> HistoryStore? in
          defer { s.store = nil }
          return s.store
        }
        store?.close()
      }
    }
  }

  // MARK: Sample path (source delivery thread)

  /// Whether the service needs samples now (history allowed), and at which rate (Hz).
  var demandedRate: Double {
    state.withLock { $0.condition == .denied ? 0 : settings.recordingRate }
  }

  /// Feeds one sample; returns the live updates it caused.
  func process(_ sample: MotionSample, now: Double) -> [LiveUpdate] {
    state.withLock { s -> [LiveUpdate] in
      guard s.condition != .denied, !s.isStopping else { return [] }
      var updates: [LiveUpdate] = []
      let date = s.anchor.date(forTimestamp: sample.timestamp, now: now)
      if let previous = s.latestSample, date - previous.date > Self.activityGap,
        let last = s.lastActivity
      {
        // A gap in the samples (the machine was suspended, the source stalled): unknown through
        // it, then the activity in force again from this sample (the classifier reports a change
        // if it finds another). It used to last through the gap: a laptop suspended at rest
        // overnight showed a night at rest.
        Self.fileUnknownActivity(&s, from: previous)
        let resumed = HistoryBatch.ActivityChange(
          startDate: date, timestamp: sample.timestamp, flags: last.flags,
          confidence: last.confidence)
        s.pending.activities.append(resumed)
        s.lastActivity = resumed
      }
      s.latestSample = (sample.timestamp, date)
      if let rate = sample.gyroscope {
        // A limb's strides: steps the accelerometer misses (StepDetector.process(time:rotationRate:)).
        s.pedometer.process(time: sample.timestamp, rotationRate: rate)
      }
      if let specificForce = sample.accelerometer, specificForce.isFinite {
        let acceleration = Units.coreMotionAcceleration(fromSpecificForce: specificForce)
        if let estimate = s.pedometer.process(time: sample.timestamp, acceleration: acceleration)
          .activity
        {
          let change = HistoryBatch.ActivityChange(
            startDate: date - (sample.timestamp - estimate.startTime),
            timestamp: estimate.startTime,
            flags: Self.flags(estimate), confidence: Int64(estimate.confidence.rawValue))
          s.pending.activities.append(change)
          s.lastActivity = change
          var live = Opencoremotion_Daemon_V1_LiveUpdate()
          live.activity = Self.wireSegment(change)
          updates.append(LiveUpdate(kind: .activity, wire: live))
        }
        // Steps given back after a ride come several at once: one live update carries them all.
        let counted = fileCountedSteps(&s, timestamp: sample.timestamp, date: date)
        if counted { updates.append(pedometerUpdate(s, timestamp: sample.timestamp, date: date)) }
        if s.store != nil, date <= s.recordingUntil,
          s.recorderDecimator.accept(sample.timestamp, interval: 1 / settings.recordingRate)
        {
          if s.pending.recorded.count < settings.maximumPendingSamples {
            s.pending.recorded.append(
              HistoryBatch.RecordedSample(
                timestamp: sample.timestamp, date: date, acceleration: specificForce))
          } else {
            s.droppedSamples += 1
          }
        }
      }
      if let pressure = sample.pressure,
        let reading = s.altitude.process(time: sample.timestamp, pressure: pressure)
      {
        let ascended = UInt64(clamping: s.altitude.floorsAscended)
        let descended = UInt64(clamping: s.altitude.floorsDescended)
        if ascended != s.lastFloorsAscended || descended != s.lastFloorsDescended {
          // The minute row of when the floors were walked: floors that steps given back late
          // showed to be walked are dated where their change settled, usually a minute or so
          // before this reading, after a gap in the readings as long before as the gap. The lag
          // is bounded by the history's 7 days (older rows are pruned anyway), which keeps the
          // minute's arithmetic near the wall clock whatever the source's timestamps.
          let floorMinute = Self.minuteRow(
            date: date, age: sample.timestamp - (reading.floors?.time ?? sample.timestamp),
            longestAge: Self.longestFloorAge)
          s.pending.steps[floorMinute, default: HistoryBatch.StepDelta()].floorsAscended +=
            Int64(ascended - s.lastFloorsAscended)
          s.pending.steps[floorMinute, default: HistoryBatch.StepDelta()].floorsDescended +=
            Int64(descended - s.lastFloorsDescended)
          s.lastFloorsAscended = ascended
          s.lastFloorsDescended = descended
          updates.append(pedometerUpdate(s, timestamp: sample.timestamp, date: date))
        }
        // Altitude updates at most every second, like CMAltimeter.
        if sample.timestamp - s.lastAltitudeUpdate >= 1 {
          s.lastAltitudeUpdate = sample.timestamp
          var altitude = Opencoremotion_Daemon_V1_AltitudeLive()
          altitude.timestamp = sample.timestamp
          // The pair CMAltimeter reports in process: the height and the smoothed pressure it is
          // the height of.
          altitude.relativeAltitude = reading.altitude
          altitude.pressure = reading.pressure
          var live = Opencoremotion_Daemon_V1_LiveUpdate()
          live.altitude = altitude
          updates.append(LiveUpdate(kind: .altitude, wire: live))
        }
      }
      return updates
    }
  }

  /// Files every step the pedometer lets through now, at the sample of `timestamp` (source clock,
  /// s) and `date` (s since 1970); returns whether there was one.
  private func fileCountedSteps(_ s: inout State, timestamp: Double, date: Double) -> Bool {
    var counted = false
    while let stepTime = s.pedometer.nextStep() {
      counted = true
      // The minute row of the step itself: the riding gate gives steps back up to minutes
      // after they were found (``longestStepAge``).
      let stepMinute = Self.minuteRow(
        date: date, age: timestamp - stepTime, longestAge: Self.longestStepAge)
      let step = s.stepCadence.noteStep(at: stepTime)
      s.cadence = step.cadence ?? 0
      s.lastStepTime = stepTime
      s.altitude.noteStep(time: stepTime)
      let stride = step.length
      s.steps += 1
      s.distance += stride
      s.pending.steps[stepMinute, default: HistoryBatch.StepDelta()].steps += 1
      s.pending.steps[stepMinute, default: HistoryBatch.StepDelta()].distance += stride
      let active = s.cadence > 0 ? 1 / s.cadence : 0.5
      s.activeSeconds += active
      s.pending.steps[stepMinute, default: HistoryBatch.StepDelta()].activeSeconds += active
    }
    return counted
  }

  private func pedometerUpdate(_ s: State, timestamp: Double, date: Double) -> LiveUpdate {
    var live = Opencoremotion_Daemon_V1_LiveUpdate()
    live.pedometer = Self.counters(s, timestamp: timestamp, date: date)
    return LiveUpdate(kind: .pedometer, wire: live)
  }

  /// The cumulative live counters in `s`.
  private static func counters(
    _ s: State, timestamp: Double, date: Double
  ) -> Opencoremotion_Daemon_V1_PedometerLive {
    var pedometer = Opencoremotion_Daemon_V1_PedometerLive()
    pedometer.timestamp = timestamp
    pedometer.date = date
    pedometer.steps = s.steps
    pedometer.distance = s.distance
    pedometer.floorsAscended = UInt64(clamping: s.altitude.floorsAscended)
    pedometer.floorsDescended = UInt64(clamping: s.altitude.floorsDescended)
    pedometer.cadence = s.cadence
    pedometer.activeSeconds = s.activeSeconds
    return pedometer
  }

  /// How much older than the sample that counts it a step can be filed, s: the riding gate
  /// gives steps back at most its longest stop, shortest ride and confirmation after they were
  /// found (185 s by default, 1,260 s with each at the largest value it accepts,
  /// ``RidingStepGate/Parameters``), so 30 min bounds it with room. A larger age comes from a
  /// source clock that jumped forward, and the step is filed no further back than this.
  static let longestStepAge = 1_800.0
  /// How much older than the reading that counts them floors can be filed, s: the history's
  /// seven days (older rows are pruned anyway).
  static let longestFloorAge = 7 * 86_400.0

  /// The start of the minute row (s since 1970) for something `age` seconds older than the
  /// sample dated `date` (wall clock, s since 1970): negative or non-finite ages file it at
  /// `date`, ages over `longestAge` at `longestAge` before it. `date` comes from the wall clock
  /// anchor and is always finite, near now; a non-finite one (which it never is) files at 0
  /// rather than trap.
  static func minuteRow(date: Double, age: Double, longestAge: Double) -> Int64 {
    let lag = age.isFinite ? Swift.min(Swift.max(age, 0), longestAge) : 0
    let minutes = ((date - lag) / 60).rounded(.down)
    guard minutes.isFinite, abs(minutes) < 1e15 else { return 0 }
    return Int64(minutes) * 60
  }

  /// ``flags(_:)`` of an activity that is only `unknown`.
  static let unknownActivityFlags: Int64 = 32

  /// The longest time between two samples that the activity in force is taken to last through,
  /// s (of the wall clock).
  static let activityGap = 10.0

  /// Files an `unknown` activity from the sample `latest`, if an activity was reported: nothing
  /// is known of the time after it (the daemon stops, or the samples stop for a while). Dated
  /// after the last change: rows are keyed by their start date.
  private static func fileUnknownActivity(
    _ s: inout State, from latest: (timestamp: Double, date: Double)
  ) {
    guard let last = s.lastActivity else { return }
    let unknown = HistoryBatch.ActivityChange(
      startDate: Swift.max(latest.date, last.startDate + 0.001), timestamp: latest.timestamp,
      flags: unknownActivityFlags, confidence: 0)
    s.pending.activities.append(unknown)
    s.lastActivity = unknown
  }

  static func flags(_ estimate: ActivityEstimate) -> Int64 {
    var flags: Int64 = 0
    if estimate.stationary { flags |= 1 }
    if estimate.walking { flags |= 2 }
    if estimate.running { flags |= 4 }
    if estimate.cycling { flags |= 8 }
    if estimate.automotive { flags |= 16 }
    if estimate.unknown { flags |= unknownActivityFlags }
    return flags
  }

  static func wireSegment(_ change: HistoryBatch.ActivityChange) -> WireActivitySegment {
    var segment = WireActivitySegment()
    segment.startDate = change.startDate
    segment.timestamp = change.timestamp
    segment.stationary = change.flags & 1 != 0
    segment.walking = change.flags & 2 != 0
    segment.running = change.flags & 4 != 0
    segment.cycling = change.flags & 8 != 0
    segment.automotive = change.flags & 16 != 0
    segment.unknown = change.flags & 32 != 0
    segment.confidence = UInt32(clamping: change.confidence)
    return segment
  }

  // MARK: Writer thread

  private func writerLoop() {
    var lastPrune = -Double.infinity
    var nextRetry = 0.0
    var nextOpenAttempt = Date().timeIntervalSince1970 + settings.retryInterval
    while true {
      wakeUp.lock()
      if !state.withLock({ $0.isStopping }) {
        _ = wakeUp.wait(until: Date(timeIntervalSinceNow: settings.flushInterval))
      }
      wakeUp.unlock()
      if state.withLock({ $0.isStopping }) { return }
      let now = Date().timeIntervalSince1970
      storeLock.withLock {
        // `stop()` may have closed the store since the check above: nothing is opened again.
        if state.withLock({ $0.isStopping }) { return }
        // The user may have allowed history through another daemon on this state directory: it
        // removed the marker, and this one would stay denied (its clients told so) until it
        // restarted. One file check a flush. The store is opened as for an allow given here; if
        // the other daemon took it first, this one is unavailable and takes it over by the retry
        // below once that one stops (one daemon records per history).
        if state.withLock({ $0.condition == .denied && $0.denialIsOnDisk }),
          !FileManager.default.fileExists(atPath: denialMarkerPath)
        {
          logger.notice(
            "motion history was allowed by the user (\(denialMarkerPath) was removed)")
          openStoreLocked()
          nextOpenAttempt = now + settings.retryInterval
          tellOfPrivacyChangeFoundOnDisk()
          return
        }
        // A store that could not be opened (locked by another process, a file in the way) is
        // tried again, so history recovers without a restart once the cause is gone.
        if case .unavailable = state.withLock({ $0.condition }) {
          guard now >= nextOpenAttempt else { return }
          nextOpenAttempt = now + settings.retryInterval
          openStoreLocked()
          return
        }
        if let store = state.withLock({ $0.store }), !store.isStillAtItsPath {
          reopenStoreLocked(because: "its file \(store.path) was deleted or replaced")
          return
        }
        if case .paused = state.withLock({ $0.condition }), now < nextRetry { return }
        flushLocked()
        if case .paused = state.withLock({ $0.condition }) {
          nextRetry = now + settings.retryInterval
        }
        if state.withLock({ s in
          s.failedWrites >= settings.reopenAfterFailedWrites && !s.reopenedForFailures
        }) {
          reopenStoreLocked(
            because: "writes failed \(settings.reopenAfterFailedWrites) times in a row",
            keepingThePause: true)
          return
        }
        if now - lastPrune >= settings.pruneInterval, let store = state.withLock({ $0.store }) {
          lastPrune = now
          do { try store.prune(now: now) } catch {
            logger.warning("pruning the motion history failed: \(error)")
          }
        }
      }
    }
  }

  /// Commits the pending batch (caller holds `storeLock`).
  private func flushLocked() {
    let (batch, store, identifier) = state.withLock { s -> (HistoryBatch, HistoryStore?, UInt64) in
      let batch = s.pending
      s.pending = HistoryBatch()
      return (batch, s.store, s.nextIdentifier)
    }
    guard let store, !batch.isEmpty else { return }
    do {
      try store.write(batch, firstIdentifier: identifier)
      state.withLock { s in
        s.nextIdentifier &+= UInt64(batch.recorded.count)
        s.failedWrites = 0
        s.reopenedForFailures = false
        if case .paused = s.condition {
          s.condition = .recording
          logger.notice("motion history resumed")
        }
      }
    } catch {
      let isFull =
        "\(error)".contains("SQLITE_FULL") || "\(error)".contains("database or disk is full")
      state.withLock { s in
        // Put the batch back in front of what arrived meanwhile, within the pending bound.
        var restored = batch
        restored.merge(s.pending)
        if restored.recorded.count > settings.maximumPendingSamples {
          let excess = restored.recorded.count - settings.maximumPendingSamples
          restored.recorded.removeFirst(excess)
          s.droppedSamples += UInt64(excess)
        }
        s.pending = restored
        // A full disk is waited out on the same connection; other errors may stay with it.
        s.failedWrites = isFull ? 0 : s.failedWrites + 1
        let reason = isFull ? "disk full" : "write failed: \(error)"
        if s.condition != .paused(reason) {
          logger.error(
            "motion history paused (\(reason)); live streams continue, retrying every \(settings.retryInterval) s"
          )
        }
        s.condition = .paused(reason)
      }
    }
  }

  /// Closes the store and opens it again; the pending batch is kept and written to the reopened
  /// store (caller holds `storeLock`). A failed open leaves history unavailable, retried by the
  /// writer loop like a store that could not be opened at start. With `keepingThePause` (a
  /// reopen for failed writes) history stays paused until a write succeeds, and the store is not
  /// reopened again in the same episode.
  private func reopenStoreLocked(because reason: String, keepingThePause: Bool = false) {
    let pause = closeLock.withWriteLock { () -> Condition in
      let (store, condition) = state.withLock { s -> (HistoryStore?, Condition) in
        defer {
          s.store = nil
          s.failedWrites = 0
          if keepingThePause { s.reopenedForFailures = true }
        }
        return (s.store, s.condition)
      }
      store?.close()
      return condition
    }
    logger.warning("reopening the motion history: \(reason)")
    openStoreLocked()
    state.withLock { s in
      if keepingThePause, case .paused = pause, s.condition == .recording { s.condition = pause }
      // Idempotent (rows are keyed by their start date) if the file was not new.
      if let last = s.lastActivity { s.pending.activities.insert(last, at: 0) }
    }
  }

  // MARK: Requests

  var condition: Condition { state.withLock { $0.condition } }

  /// Waits (at most ``firstOpenWait``) until ``start()`` has tried to open the store, so that a
  /// query or a status request that comes as the daemon starts sees the store, not "being
  /// opened".
  func waitForTheFirstOpenAttempt() {
    firstOpenAttempt.withLock {
      let deadline = Date(timeIntervalSinceNow: Self.firstOpenWait)
      while !hasTriedToOpen, firstOpenAttempt.wait(until: deadline) {}
    }
  }
  var recordingUntil: Double { state.withLock { $0.recordingUntil } }
  var droppedSamples: UInt64 { state.withLock { $0.droppedSamples } }

  /// Runs `body` with the open store, kept open until it returns (a privacy denial or shutdown
  /// waits for it), or returns the error code and message a query gets instead.
  func withStoreForQuery<T>(_ body: (HistoryStore) -> T) -> Result<T, QueryError> {
    waitForTheFirstOpenAttempt()
    return closeLock.withReadLock {
      let open = state.withLock { s -> Result<HistoryStore, QueryError> in
        if s.condition == .denied {
          return .failure(QueryError(code: .notAuthorized, message: "motion history is denied"))
        }
        guard let store = s.store else {
          return .failure(
            QueryError(code: .notAvailable, message: "motion history is \(s.condition.text)"))
        }
        return .success(store)
      }
      return open.map(body)
    }
  }

  /// Pedometer totals over `[from, to]` (s since 1970) from the store and the steps not yet
  /// written, with the live counters at the same instant: the totals include exactly the steps
  /// the counters count, so a client can go on from them with later live updates.
  func pedometerTotals(
    from: Double, to: Double, now: Double
  )
    -> Result<
      (totals: HistoryBatch.StepDelta, counters: Opencoremotion_Daemon_V1_PedometerLive), QueryError
    >
  {
    // Before `storeLock`: the first open takes it (a query holding it while waiting for the open
    // would hold the open off).
    waitForTheFirstOpenAttempt()
    // Under `storeLock` no flush moves pending steps into the store between the two reads.
    return storeLock.withLock {
      let stored = withStoreForQuery { store in
        Result { try store.stepMinutes(from: from, to: to) }
      }
      var minutes: [Int64: HistoryBatch.StepDelta]
      switch stored {
      case .failure(let error): return .failure(error)
      case .success(.failure(let error)):
        return .failure(QueryError(code: .notAvailable, message: "history query failed: \(error)"))
      case .success(.success(let found)): minutes = found
      }
      let counters = state.withLock { s -> Opencoremotion_Daemon_V1_PedometerLive in
        for (minute, delta) in s.pending.steps
        where Double(minute) < to && Double(minute) + 60 > from {
          minutes[minute, default: HistoryBatch.StepDelta()].add(delta)
        }
        return Self.counters(s, timestamp: s.lastStepTime ?? 0, date: now)
      }
      return .success((HistoryBatch.totals(of: minutes, from: from, to: to, now: now), counters))
    }
  }

  struct QueryError: Error, Sendable {
    var code: WireError.Code
    var message: String
  }

  /// Extends the recording to at least `now + duration`; returns the new end (s since 1970).
  func recordAccelerometer(duration: Double, now: Double) -> Result<Double, QueryError> {
    guard duration.isFinite, duration > 0, duration <= 43_200 else {
      return .failure(
        QueryError(code: .invalidParameter, message: "duration must be in (0, 43200] s"))
    }
    let until = now + duration
    waitForTheFirstOpenAttempt()  // before `storeLock`, which the first open takes
    // The store is taken under `storeLock`, so a privacy denial cannot close it in between.
    let written = storeLock.withLock {
      withStoreForQuery { store in
        Result { try store.addRecordingRequest(requestedDate: now, untilDate: until) }
      }
    }
    switch written {
    case .failure(let error): return .failure(error)
    case .success(.failure(let error)):
      return .failure(
        QueryError(code: .notAvailable, message: "cannot store the request: \(error)"))
    case .success(.success):
      return .success(
        state.withLock { s in
          s.recordingUntil = max(s.recordingUntil, until)
          return s.recordingUntil
        })
    }
  }

  /// Allows or denies motion history. Denying stops recording and deletes the store's files.
  func setAllowed(_ allowed: Bool) {
    storeLock.withLock {
      if allowed {
        guard state.withLock({ $0.condition == .denied }) else { return }
        try? FileManager.default.removeItem(atPath: denialMarkerPath)
        openStoreLocked()
        logger.notice("motion history allowed by the user")
      } else {
        closeLock.withWriteLock {
          let store = state.withLock { s -> HistoryStore? in
            defer {
              s.store = nil
              s.recordingUntil = 0
              Self.deny(&s)
              s.denialIsOnDisk = false
            }
            return s.store
          }
          store?.close()
        }
        HistoryStore.deleteFiles(directory: settings.directory)
        try? FileManager.default.createDirectory(
          atPath: settings.directory, withIntermediateDirectories: true,
          attributes: [.posixPermissions: 0o700])
        let markerWritten = FileManager.default.createFile(
          atPath: denialMarkerPath, contents: Data("denied\n".utf8),
          attributes: [.posixPermissions: 0o600])
        if markerWritten {
          state.withLock { $0.denialIsOnDisk = true }
        } else {
          // The denial still holds for this run; a restarted daemon would record again.
          logger.error(
            "could not write \(denialMarkerPath): the denial lasts until the daemon restarts")
        }
        logger.notice("motion history denied by the user: recording stopped, history deleted")
      }
    }
  }
}
