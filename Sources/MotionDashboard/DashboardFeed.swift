// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath
import MotionRecognition
import MotionSensors
import OpenCoreMotion
import OpenUIDevice
import SourceComposition

/// Reads one sensor source through the Core Motion API and collects what the page shows.
///
/// Two subscriptions per source, whatever the page shows, both handled on the source's delivery
/// thread:
/// - one `CMMotionManager` device-motion stream at the source's full rate, in the page's reference
///   frame. Every update feeds the recognisers (orientation, shake, tap, movement) and the
///   pedometer adapter, which need the full rate; the updates due at the display rate also become
///   the page's device-motion rows.
/// - a plain source subscription: each sensor's rate and gaps, the barometer, the recorder, and
///   the raw accelerometer, gyroscope and magnetometer rows at the display rate (converted to Core
///   Motion's units and signs here, as `CMMotionManager` does).
///
/// An update handed to an `OperationQueue` costs a thread hop and an `Operation` (about a fifth of
/// the server's CPU at 100 Hz, measured with `perf`), so device motion uses the manager's
/// package-only delivery-thread handler, and the display opens no streams of its own: the page's
/// rate only picks which updates become rows (by the samples' own timestamps, as the motion
/// manager's update intervals do), and changing it restarts nothing.
///
/// `@unchecked Sendable`: the manager, `rawSubscription` and `started` are only touched with
/// `control` held (``start()``, ``stop()``, ``applySelectedFrame()``, ``isStarted``); the page's
/// choices are in `selection` and everything the handlers write is in `state`; the recognisers
/// are touched only by the device-motion (or accelerometer) handler, which the manager calls
/// serially.
package final class DashboardFeed: @unchecked Sendable {
  package let specification: SourceSpecification
  package let source: any SensorSource
  package let recorder: DashboardRecorder

  private let manager: CMMotionManager
  private let control = NSLock()
  private var rawSubscription: SourceSubscription?
  /// The reference frame and display rate the page chose: a lock of their own, so that the page's
  /// greeting reads them while a source is still starting (under `control`, for seconds).
  private let selection: Locked<(frame: CMAttitudeReferenceFrame, rate: Double)>
  private let state: LockedState
  /// The recognisers' state, kept across reference-frame changes; used by the motion handler only.
  private let recognizers = DashboardRecognizers()

  /// The highest rate of the raw magnetometer rows, Hz.
  package static let maximumMagnetometerRate = 25.0

  /// `Locked` from MotionSensors, named for this file's readers.
  private typealias LockedState = Locked<DashboardFeedState>

  package init(
    specification: SourceSpecification, source: any SensorSource, frame: CMAttitudeReferenceFrame,
    rate: Double,
    recorder: DashboardRecorder
  ) {
    self.specification = specification
    self.source = source
    self.recorder = recorder
    selection = Locked((frame, rate))
    manager = CMMotionManager(source: source)
    state = LockedState(
      DashboardFeedState(displayInterval: 1 / rate, sourcePeriod: source.shortestSamplePeriod))
  }

  /// The reference frames the source supports, by Apple's names.
  package var supportedFrames: [String] {
    let frames = manager.supportedAttitudeReferenceFrames
    return DashboardReferenceFrame.allCases.filter { frames.contains($0.frame) }.map(\.rawValue)
  }

  package var currentFrame: String {
    let frame = selection.withLock { $0.frame }
    return DashboardReferenceFrame(frame)?.rawValue ?? "xArbitraryZVertical"
  }

  package var currentRate: Double { selection.withLock { $0.rate } }

  // MARK: Starting and stopping

  /// Whether ``start()`` was called.
  package var isStarted: Bool { control.withLock { started } }
  private var started = false

  package func start() {
    control.withLock {
      guard !started else { return }
      started = true
      startRaw()
      startMotion()
    }
  }

  /// Stops every subscription; a later ``start()`` subscribes again.
  package func stop() {
    control.withLock {
      started = false
      rawSubscription?.cancel()
      rawSubscription = nil
      manager.stopDeviceMotionUpdates()
      manager.stopAccelerometerUpdates()
    }
  }

  /// Restarts device motion in `frame` (the recognisers keep their state): ``selectFrame(_:)``
  /// then ``applySelectedFrame()``.
  package func setFrame(_ newFrame: CMAttitudeReferenceFrame) {
    selectFrame(newFrame)
    applySelectedFrame()
  }

  /// Makes `newFrame` the frame the page is told (``currentFrame``) and the next start uses; does
  /// not block.
  package func selectFrame(_ newFrame: CMAttitudeReferenceFrame) {
    selection.withLock { $0.frame = newFrame }
    state.withLock { $0.problem = nil }
  }

  /// Restarts device motion in the selected frame, if the feed runs. Subscribing may block for as
  /// long as the source takes to start.
  package func applySelectedFrame() {
    control.withLock {
      guard started else { return }
      manager.stopDeviceMotionUpdates()
      manager.stopAccelerometerUpdates()
      startMotion()
    }
  }

  /// Sets the display rate (Hz) of device motion and the raw streams.
  package func setRate(_ newRate: Double) {
    selection.withLock { $0.rate = newRate }
    state.withLock { $0.displayInterval = 1 / newRate }
  }

  /// Makes raw gyroscope rows even while device motion carries the rotation rate (a Foxglove
  /// client subscribes to `/gyroscope`), or stops.
  package func setRawGyroscopeRequested(_ requested: Bool) {
    state.withLock { $0.rawGyroscopeRequested = requested }
  }

  /// Has the source's delivery thread call `request` whenever `period` seconds have passed since
  /// the last call and the batch has been taken since (so frames follow the data: no timer ticks
  /// while samples flow, none at all while the source is stopped).
  package func setFrameRequests(period: Double, _ request: @escaping @Sendable () -> Void) {
    state.withLock {
      $0.frameRequestPeriod = period
      $0.requestFrame = request
      // A new period starts now (not after the rest of a longer one).
      $0.nextFrameRequest = -.infinity
    }
  }

  /// Takes what was collected since the last call and the current values.
  package func take() -> (batch: DashboardBatch, state: DashboardFeedState) {
    let now = monotonicSeconds()
    return state.withLock { current in
      current.lastBatchLatency = current.oldestArrival.map { now - $0 } ?? current.lastBatchLatency
      let snapshot = current
      current.batch = DashboardBatch()
      current.oldestArrival = nil
      current.frameRequestArmed = true
      return (snapshot.batch, snapshot)
    }
  }

  // MARK: Raw subscription: health, barometer, recorder, raw rows

  private func startRaw() {
    let state = self.state
    let recorder = self.recorder
    // Device motion carries the bias-corrected rotation rate; raw gyroscope rows only without it,
    // or while a Foxglove client subscribes to them (`DashboardFeedState.rawGyroscopeRequested`).
    let gyroscopeRowsWanted = !manager.isDeviceMotionAvailable
    // With device motion, its handler (which runs after this one for the same sample) requests
    // the frames, so that a frame has every row of its last sample; this one only if it stalls.
    let requestGrace = manager.isDeviceMotionAvailable ? 0.1 : 0
    rawSubscription = source.subscribe(requestedSampleRate: source.supportedSampleRates.upperBound)
    { event in
      switch event {
      case .sample(let sample):
        recorder.append(sample)
        let now = monotonicSeconds()
        let request = state.withLock { current in
          current.noteRawSample(sample, gyroscopeRowsWanted: gyroscopeRowsWanted, now: now)
          return current.dueFrameRequest(now: now, grace: requestGrace)
        }
        request?()
      case .failure(let failure):
        state.withLock { $0.problem = failure.message }
      case .finished:
        state.withLock {
          $0.finished = true
          $0.batch.append(DashboardEvent(time: .nan, kind: "source", detail: "finished"))
        }
      }
    }
  }

  // MARK: Device motion at the full rate: recognisers, pedometer, display rows

  private func startMotion() {
    let state = self.state
    let recognizers = self.recognizers
    if manager.isDeviceMotionAvailable {
      manager.deviceMotionUpdateInterval = 0
      manager.startDeviceMotionUpdates(
        using: selection.withLock { $0.frame },
        onDeliveryThread: { motion, error in
          if let error { state.withLock { $0.problem = (error as NSError).localizedDescription } }
          guard let motion else { return }
          let input = MotionInput(motion)
          let events = recognizers.update(input)
          let now = monotonicSeconds()
          let request = state.withLock { current in
            current.noteRecognition(events, orientation: recognizers.orientationName, input: input)
            // The row (and the attitude copy it reads) only for the updates due at the display rate.
            if current.motionRows.accept(motion.timestamp, interval: current.displayInterval) {
              current.noteArrival(now)
              current.batch.append(DashboardBatch.motionRow(motion), to: .motion)
            }
            return current.dueFrameRequest(now: now)
          }
          request?()
        })
    } else if manager.isAccelerometerAvailable {
      manager.accelerometerUpdateInterval = 0
      manager.startAccelerometerUpdates(onDeliveryThread: { data, error in
        if let error { state.withLock { $0.problem = "\(error)" } }
        guard let data else { return }
        let input = MotionInput(data)
        let events = recognizers.update(input)
        state.withLock { current in
          current.noteRecognition(events, orientation: recognizers.orientationName, input: input)
        }
      })
    }
  }
}

/// The recognisers the page shows events of, fed at the full rate.
///
/// Not `Sendable`: used only by the feed's motion handler, which runs serially.
private final class DashboardRecognizers {
  private var orientation = OrientationClassifier()
  private var shake = ShakeDetector()
  private var tap = TapDetector()
  private var movement = MovementDirectionDetector()

  /// The current orientation's name, made when it changes (describing an enum reflects on it:
  /// too slow for every sample).
  private(set) var orientationName = "unknown"

  /// The events `input` completes.
  func update(_ input: MotionInput) -> [DashboardEvent] {
    var events: [DashboardEvent] = []
    if let change = orientation.update(input) {
      orientationName = "\(change.orientation)"
      events.append(
        DashboardEvent(time: change.timestamp, kind: "orientation", detail: orientationName))
    }
    if let event = shake.update(input) {
      events.append(DashboardEvent(time: event.timestamp, kind: "shake", detail: "\(event.phase)"))
    }
    if let event = tap.update(input) {
      events.append(
        DashboardEvent(time: event.timestamp, kind: "tap", detail: "\(event.struckSide)"))
    }
    if let event = movement.update(input) {
      events.append(
        DashboardEvent(time: event.timestamp, kind: "movement", detail: event.direction.rawValue))
    }
    return events
  }
}

extension DashboardFeedState {
  /// Notes one source sample: stream health, barometer rows and altitude events, and the raw rows
  /// due at the display rate (acceleration in g with Core Motion's sign, rad/s, µT).
  mutating func noteRawSample(_ sample: MotionSample, gyroscopeRowsWanted: Bool, now: Double) {
    let time = sample.timestamp
    if let force = sample.accelerometer {
      health.note(.accelerometer, time: time)
      if force.isFinite, accelerometerRows.accept(time, interval: displayInterval) {
        let a = Units.coreMotionAcceleration(fromSpecificForce: force)
        noteArrival(now)
        batch.append([time, a.x, a.y, a.z], to: .accelerometer)
      }
    }
    if let rate = sample.gyroscope {
      health.note(.gyroscope, time: time)
      pedometer.process(time: time, rotationRate: rate)
      if gyroscopeRowsWanted || rawGyroscopeRequested, rate.isFinite,
        gyroscopeRows.accept(time, interval: displayInterval)
      {
        batch.append([time, rate.x, rate.y, rate.z], to: .gyroscope)
      }
    }
    if let field = sample.magnetometer {
      health.note(.magnetometer, time: time)
      // The field changes slowly and device motion carries the calibrated one: at most 25 Hz.
      let interval = max(displayInterval, 1 / DashboardFeed.maximumMagnetometerRate)
      if field.isFinite, magnetometerRows.accept(time, interval: interval) {
        batch.append([time, field.x, field.y, field.z], to: .magnetometer)
      }
    }
    if let pressure = sample.pressure {
      health.note(.barometer, time: time)
      // A refused reading (a broken sensor, or hPa sent as kPa) is left out of the plot as well
      // as the altitude, instead of being drawn at a height of 0.
      if let events = pedometer.process(time: time, pressure: pressure) {
        for event in events { batch.append(event) }
        batch.append(
          [
            time, pedometer.snapshot.pressure ?? pressure,
            pedometer.snapshot.relativeAltitude ?? 0,
          ], to: .pressure)
      }
    }
  }

  /// Notes the recognisers' events and orientation and feeds the pedometer adapter.
  mutating func noteRecognition(
    _ events: [DashboardEvent], orientation name: String, input: MotionInput
  ) {
    orientation = name
    var all = events
    all += pedometer.process(time: input.timestamp, acceleration: input.acceleration)
    for event in all { batch.append(event) }
  }
}

extension DashboardBatch {
  /// A device-motion row as the page reads it: timestamp, attitude quaternion (w, x, y, z),
  /// gravity, user acceleration (g), bias-corrected rotation rate (rad/s), calibrated field (µT),
  /// its accuracy and the heading (degrees).
  static func motionRow(_ motion: CMDeviceMotion) -> [Double] {
    let q = motion.attitude.quaternion
    let g = motion.gravity
    let u = motion.userAcceleration
    let r = motion.rotationRate
    let field = motion.magneticField
    return [
      motion.timestamp, q.w, q.x, q.y, q.z, g.x, g.y, g.z, u.x, u.y, u.z, r.x, r.y, r.z,
      field.field.x, field.field.y, field.field.z, Double(field.accuracy.rawValue), motion.heading,
    ]
  }
}
