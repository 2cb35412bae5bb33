// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath
import MotionRecognition
import MotionSensors
import OpenCoreMotion
import SourceComposition
import OpenUIDevice

/// Reads one sensor source through the public Core Motion API and collects what the page shows.
///
/// Two `CMMotionManager`s share the source (and its fusion filter): one delivers every sample to the
/// recognisers (orientation, shake, tap, movement) and the pedometer adapter, which need the full
/// rate; the other delivers device motion in the chosen reference frame and the raw streams at the
/// display rate. A plain source subscription measures each sensor's rate and gaps, feeds the
/// barometer (no `CMAltimeter` yet) and the recorder.
///
/// `@unchecked Sendable`: the managers and the queue are only touched by ``start()``,
/// ``stop()`` and the setters, which hold `control`; everything the handlers write is in `state`.
package final class DashboardFeed: @unchecked Sendable {
  package let specification: SourceSpecification
  package let source: any SensorSource
  package let recorder: DashboardRecorder

  private let recognizerManager: CMMotionManager
  private let displayManager: CMMotionManager
  private let queue: OperationQueue
  private let control = NSLock()
  private var rawSubscription: SourceSubscription?
  private var frame: CMAttitudeReferenceFrame
  private var rate: Double
  private let state = LockedState(DashboardFeedState())

  /// The highest rate of the raw magnetometer rows, Hz.
  package static let maximumMagnetometerRate = 25.0

  /// `Locked` from MotionSensors, named for this file's readers.
  private typealias LockedState = Locked<DashboardFeedState>

  package init(
    specification: SourceSpecification, source: any SensorSource, frame: CMAttitudeReferenceFrame, rate: Double,
    recorder: DashboardRecorder
  ) {
    self.specification = specification
    self.source = source
    self.recorder = recorder
    self.frame = frame
    self.rate = rate
    recognizerManager = CMMotionManager(source: source)
    displayManager = CMMotionManager(source: source)
    queue = OperationQueue()
    queue.name = "MotionDashboard.feed"
    queue.maxConcurrentOperationCount = 1
  }

  /// The reference frames the source supports, by Apple's names.
  package var supportedFrames: [String] {
    let frames = displayManager.supportedAttitudeReferenceFrames
    return DashboardReferenceFrame.allCases.filter { frames.contains($0.frame) }.map(\.rawValue)
  }

  package var currentFrame: String {
    control.withLock { DashboardReferenceFrame(frame)?.rawValue ?? "xArbitraryZVertical" }
  }

  package var currentRate: Double { control.withLock { rate } }

  // MARK: Starting and stopping

  /// Whether ``start()`` was called.
  package var isStarted: Bool { control.withLock { started } }
  private var started = false

  package func start() {
    control.withLock {
      guard !started else { return }
      started = true
      startRaw()
      startRecognizers()
      startDisplay()
    }
  }

  /// Stops every subscription; a later ``start()`` subscribes again.
  package func stop() {
    control.withLock {
      started = false
      rawSubscription?.cancel()
      rawSubscription = nil
      recognizerManager.stopDeviceMotionUpdates()
      recognizerManager.stopAccelerometerUpdates()
      stopDisplay()
    }
  }

  /// Restarts device motion in `frame`.
  package func setFrame(_ newFrame: CMAttitudeReferenceFrame) {
    control.withLock {
      frame = newFrame
      state.withLock { $0.problem = nil }
      displayManager.stopDeviceMotionUpdates()
      startDeviceMotion()
    }
  }

  /// Sets the display rate (Hz) of device motion and the raw streams.
  package func setRate(_ newRate: Double) {
    control.withLock {
      rate = newRate
      stopDisplay()
      startDisplay()
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
      return (snapshot.batch, snapshot)
    }
  }

  // MARK: Raw subscription: health, barometer, recorder

  private func startRaw() {
    let state = self.state
    let recorder = self.recorder
    rawSubscription = source.subscribe(requestedSampleRate: source.supportedSampleRates.upperBound) { event in
      switch event {
      case .sample(let sample):
        recorder.append(sample)
        state.withLock { current in
          if sample.accelerometer != nil { current.health["accelerometer", default: StreamHealthMeter()].note(time: sample.timestamp) }
          if sample.gyroscope != nil { current.health["gyroscope", default: StreamHealthMeter()].note(time: sample.timestamp) }
          if sample.magnetometer != nil { current.health["magnetometer", default: StreamHealthMeter()].note(time: sample.timestamp) }
          if let pressure = sample.pressure {
            current.health["barometer", default: StreamHealthMeter()].note(time: sample.timestamp)
            if let event = current.pedometer.process(time: sample.timestamp, pressure: pressure) {
              current.batch.append(event)
            }
            current.batch.append(
              [sample.timestamp, pressure, current.pedometer.snapshot.relativeAltitude ?? 0], to: \DashboardBatch.pressure)
          }
        }
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

  // MARK: Recognisers and pedometer at the full rate

  private func startRecognizers() {
    let state = self.state
    var orientation = OrientationClassifier()
    var shake = ShakeDetector()
    var tap = TapDetector()
    var movement = MovementDirectionDetector()
    // Called on the feed's serial queue only.
    let recognize: (MotionInput) -> Void = { input in
      var events: [DashboardEvent] = []
      if let change = orientation.update(input) {
        events.append(DashboardEvent(time: change.timestamp, kind: "orientation", detail: "\(change.orientation)"))
      }
      if let event = shake.update(input) {
        events.append(DashboardEvent(time: event.timestamp, kind: "shake", detail: "\(event.phase)"))
      }
      if let event = tap.update(input) {
        events.append(DashboardEvent(time: event.timestamp, kind: "tap", detail: "\(event.struckSide)"))
      }
      if let event = movement.update(input) {
        events.append(DashboardEvent(time: event.timestamp, kind: "movement", detail: event.direction.rawValue))
      }
      let currentOrientation = "\(orientation.orientation)"
      state.withLock { current in
        current.orientation = currentOrientation
        events += current.pedometer.process(time: input.timestamp, acceleration: input.acceleration)
        for event in events { current.batch.append(event) }
      }
    }
    if recognizerManager.isDeviceMotionAvailable {
      recognizerManager.deviceMotionUpdateInterval = 0
      recognizerManager.startDeviceMotionUpdates(to: queue) { motion, error in
        if let error { state.withLock { $0.problem = "\(error)" } }
        if let motion { recognize(MotionInput(motion)) }
      }
    } else if recognizerManager.isAccelerometerAvailable {
      recognizerManager.accelerometerUpdateInterval = 0
      recognizerManager.startAccelerometerUpdates(to: queue) { data, error in
        if let error { state.withLock { $0.problem = "\(error)" } }
        if let data { recognize(MotionInput(data)) }
      }
    }
  }

  // MARK: Display streams at the chosen rate

  private func startDisplay() {
    let state = self.state
    let interval = 1 / rate
    if displayManager.isAccelerometerAvailable {
      displayManager.accelerometerUpdateInterval = interval
      displayManager.startAccelerometerUpdates(to: queue) { data, _ in
        guard let data else { return }
        let a = data.acceleration
        let now = monotonicSeconds()
        state.withLock {
          $0.noteArrival(now)
          $0.batch.append([data.timestamp, a.x, a.y, a.z], to: \DashboardBatch.accelerometer)
        }
      }
    }
    // Device motion carries the bias-corrected rotation rate; the raw gyroscope only when there
    // is no device motion.
    if displayManager.isGyroAvailable, !displayManager.isDeviceMotionAvailable {
      displayManager.gyroUpdateInterval = interval
      displayManager.startGyroUpdates(to: queue) { data, _ in
        guard let data else { return }
        let r = data.rotationRate
        state.withLock { $0.batch.append([data.timestamp, r.x, r.y, r.z], to: \DashboardBatch.gyroscope) }
      }
    }
    if displayManager.isMagnetometerAvailable {
      // The field changes slowly and device motion carries the calibrated one: at most 25 Hz.
      displayManager.magnetometerUpdateInterval = max(interval, 1 / Self.maximumMagnetometerRate)
      displayManager.startMagnetometerUpdates(to: queue) { data, _ in
        guard let data else { return }
        let m = data.magneticField
        state.withLock { $0.batch.append([data.timestamp, m.x, m.y, m.z], to: \DashboardBatch.magnetometer) }
      }
    }
    startDeviceMotion()
  }

  private func startDeviceMotion() {
    guard displayManager.isDeviceMotionAvailable else { return }
    let state = self.state
    displayManager.deviceMotionUpdateInterval = 1 / rate
    displayManager.startDeviceMotionUpdates(using: frame, to: queue) { motion, error in
      if let error {
        state.withLock { $0.problem = (error as NSError).localizedDescription }
      }
      guard let motion else { return }
      let q = motion.attitude.quaternion
      let g = motion.gravity
      let u = motion.userAcceleration
      let r = motion.rotationRate
      let field = motion.magneticField
      let now = monotonicSeconds()
      let row = [
        motion.timestamp, q.w, q.x, q.y, q.z, g.x, g.y, g.z, u.x, u.y, u.z, r.x, r.y, r.z,
        field.field.x, field.field.y, field.field.z, Double(field.accuracy.rawValue), motion.heading,
      ]
      state.withLock {
        $0.noteArrival(now)
        $0.batch.append(row, to: \DashboardBatch.motion)
      }
    }
  }

  private func stopDisplay() {
    displayManager.stopAccelerometerUpdates()
    displayManager.stopGyroUpdates()
    displayManager.stopMagnetometerUpdates()
    displayManager.stopDeviceMotionUpdates()
  }
}
