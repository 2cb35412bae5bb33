// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionRecognition
import MotionSensors
import OpenCoreMotion

/// A stand-in for UIKit's `UIDevice`, limited to the physical-orientation API that Core Motion
/// sample code uses.
///
/// As on iOS, ``orientation`` is `.unknown` until
/// ``beginGeneratingDeviceOrientationNotifications()`` is called; calls nest, and sensing stops
/// when every begin has been matched by an end. While generating, each change is posted as
/// ``orientationDidChangeNotification`` on ``notificationCenter`` (by default
/// `NotificationCenter.default`) with the device as the object.
///
/// The orientation comes from an `OrientationClassifier` (MotionRecognition) (with hysteresis and dead zones) fed
/// with `CMDeviceMotion.gravity` when the source has a gyroscope, otherwise with lightly
/// low-passed accelerometer readings. ``current`` reads the process's default source
/// (`COREMOTION_SOURCE`).
///
/// Threading: notifications are posted synchronously on the device's private serial queue, so an
/// observer added with `queue: nil` runs there; observers that update UI state should pass
/// `queue: .main`, as on iOS. ``orientation`` may be read from any thread.
/// `@unchecked Sendable`: every `var` is read and written only while `lock` is held; the streams
/// are a `SubscriberFanOut`; `open` (as UIKit's), so the compiler cannot check subclasses.
open class UIDevice: NSObject, @unchecked Sendable {
  /// Posted when the physical orientation changes while notifications are being generated; read
  /// the new value from ``orientation``.
  public static let orientationDidChangeNotification = NSNotification.Name(
    "UIDeviceOrientationDidChangeNotification")

  /// The device the process runs on, reading the default source (`COREMOTION_SOURCE`).
  open class var current: UIDevice { shared }
  private static let shared = UIDevice()

  /// The motion manager the orientation is sensed with. An addition to UIKit's API.
  public let motionManager: CMMotionManager
  /// Where ``orientationDidChangeNotification`` is posted. An addition to UIKit's API.
  public let notificationCenter: NotificationCenter

  // Everything mutable is guarded by `lock`.
  private let lock = NSLock()
  private var generationCount = 0
  private var currentOrientation = UIDeviceOrientation.unknown
  private var classifier: OrientationClassifier
  private var smoother: FirstOrderLowPassFilter<SIMD3<Double>>?
  private var lastTimestamp: Double?
  /// Whether the sensors run (``startSensing()`` has run and ``stopSensing()`` not since).
  private var isSensing = false
  /// Whether a thread is bringing the sensors in line with ``generationCount``
  /// (``reconcileSensing()``), and whether the count changed meanwhile.
  private var isReconciling = false
  private var reconcileRequested = false
  /// The ``orientationUpdates()`` streams, in the order they were made.
  private let streams = SubscriberFanOut<UIDeviceOrientation>()
  private let queue: OperationQueue = {
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    queue.name = "OpenUIDevice.orientation"
    return queue
  }()

  /// Creates the device for the process's default source.
  public override convenience init() {
    self.init(motionManager: CMMotionManager())
  }

  /// Creates a device that senses with `motionManager` and posts to `notificationCenter`. An
  /// addition to UIKit's API, for tests and for apps that pick their own source.
  public init(
    motionManager: CMMotionManager, notificationCenter: NotificationCenter = .default,
    classifierParameters: OrientationClassifier.Parameters = .default
  ) {
    self.motionManager = motionManager
    self.notificationCenter = notificationCenter
    self.classifier = OrientationClassifier(parameters: classifierParameters)
    super.init()
  }

  /// The physical orientation; `.unknown` unless notifications are being
  /// generated.
  open var orientation: UIDeviceOrientation {
    lock.lock()
    defer { lock.unlock() }
    return currentOrientation
  }

  /// Whether orientation notifications are being generated (at least one unmatched begin).
  open var isGeneratingDeviceOrientationNotifications: Bool {
    lock.lock()
    defer { lock.unlock() }
    return generationCount > 0
  }

  /// Starts sensing the orientation (the first call) or adds one more nesting level.
  open func beginGeneratingDeviceOrientationNotifications() {
    lock.lock()
    generationCount += 1
    lock.unlock()
    reconcileSensing()
  }

  /// Removes one nesting level; the last one stops sensing and resets the orientation to unknown
  /// (at once, unless another thread is starting or stopping the sensors just then: that thread
  /// does it before it returns). Extra calls are ignored.
  open func endGeneratingDeviceOrientationNotifications() {
    lock.lock()
    guard generationCount > 0 else {
      lock.unlock()
      return
    }
    generationCount -= 1
    lock.unlock()
    reconcileSensing()
  }

  /// A Swift-native stream of orientations: the current one first, then every change. Creating
  /// it begins orientation notifications; they end when the stream's consumer stops. An addition
  /// to UIKit's API.
  public func orientationUpdates() -> AsyncStream<UIDeviceOrientation> {
    let (stream, continuation) = AsyncStream<UIDeviceOrientation>.makeStream()
    let id = streams.add { continuation.yield($0) }
    continuation.onTermination = { [weak self] _ in
      guard let self else { return }
      // Off this thread: both wait for a delivery in progress, which may be resuming the cancelled
      // task (see StreamTermination).
      StreamTermination.run {
        self.streams.remove(id)
        self.endGeneratingDeviceOrientationNotifications()
      }
    }
    // The current orientation first, read before sensing starts: otherwise a fast source could
    // classify (and yield) the new orientation before this first value.
    continuation.yield(orientation)
    beginGeneratingDeviceOrientationNotifications()
    return stream
  }

  // MARK: Sensing

  /// Starts or stops the sensors so that they run exactly while ``generationCount`` is positive.
  ///
  /// A begin and an end on two threads (a stream ending on a background queue while another
  /// begins) used to decide under the lock and act after it: the end's stop could come after the
  /// begin's start and leave a counted stream without updates. Now one thread at a time acts,
  /// and it looks at the count again after each start or stop, so the last change wins. A thread
  /// that finds another one acting leaves the work to it instead of waiting: a notification
  /// observer that begins or ends while a stop waits for its handler to return would otherwise
  /// wait for that stop for ever.
  private func reconcileSensing() {
    lock.lock()
    reconcileRequested = true
    guard !isReconciling else {
      lock.unlock()
      return
    }
    isReconciling = true
    while reconcileRequested {
      reconcileRequested = false
      let wanted = generationCount > 0
      let running = isSensing
      lock.unlock()
      if wanted && !running {
        startSensing()
      } else if !wanted && running {
        stopSensing()
      }
      lock.lock()
      if wanted != running { isSensing = wanted }
    }
    isReconciling = false
    lock.unlock()
  }

  private func startSensing() {
    lock.lock()
    classifier.reset()
    smoother = nil
    lastTimestamp = nil
    lock.unlock()
    if motionManager.isDeviceMotionAvailable {
      motionManager.startDeviceMotionUpdates(to: queue) { [weak self] motion, _ in
        guard let self, let motion else { return }
        self.classify(gravity: SIMD3(motion.gravity), timestamp: motion.timestamp, smoothing: false)
      }
    } else if motionManager.isAccelerometerAvailable {
      motionManager.startAccelerometerUpdates(to: queue) { [weak self] data, _ in
        guard let self, let data else { return }
        self.classify(gravity: SIMD3(data.acceleration), timestamp: data.timestamp, smoothing: true)
      }
    }
  }

  private func stopSensing() {
    // After these return no handler runs any more (CMMotionManager's guarantee).
    motionManager.stopDeviceMotionUpdates()
    motionManager.stopAccelerometerUpdates()
    lock.lock()
    currentOrientation = .unknown
    lock.unlock()
  }

  /// Accelerometer readings are smoothed by a 5 Hz low-pass: enough to remove hand tremor and
  /// vibration without delaying a turn by more than ~30 ms.
  private static let accelerometerSmoothingCutoff = 5.0

  private func classify(gravity: SIMD3<Double>, timestamp: Double, smoothing: Bool) {
    lock.lock()
    var reading = gravity
    if smoothing {
      let period = lastTimestamp.map { timestamp - $0 } ?? 0.01
      if smoother == nil {
        smoother = FirstOrderLowPassFilter(
          cutoffFrequency: Self.accelerometerSmoothingCutoff, sampleRate: 100)
      }
      reading = smoother!.update(gravity, samplePeriod: period > 0 ? period : 0.01)
    }
    lastTimestamp = timestamp
    let previous = currentOrientation
    let next = classifier.update(gravity: reading, timestamp: timestamp)
    let isGenerating = generationCount > 0
    if isGenerating { currentOrientation = next }
    lock.unlock()
    guard isGenerating, next != previous else { return }
    notificationCenter.post(name: Self.orientationDidChangeNotification, object: self)
    streams.deliver(next)
  }
}
