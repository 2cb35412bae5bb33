// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import SourceComposition

/// Accelerometer samples and device motion at the source's full rate, delivered in batches
/// (iOS 17 / watchOS 10).
///
/// Apple's manager serves high-rate sensors (workouts on a watch) with few wake-ups: the samples
/// of a second arrive together. Here it runs on the same source and fusion as ``CMMotionManager``,
/// at the source's fastest rate (``accelerometerDataFrequency``), and hands out one batch per
/// ``batchDuration`` of source time, every sample in it with its own timestamp. Apple's pages do
/// not say how long a batch is; one second keeps wake-ups rare and a batch at most a second late.
///
/// Handlers run on the manager's own serial queue (Apple's methods take none). Pull mode keeps the
/// latest complete batch in ``accelerometerBatch`` / ``deviceMotionBatch``. A stop drops the
/// samples of the batch in progress, and after it returns no handler of that stream runs. Without
/// the sensor (``isAccelerometerSupported`` is `false`), starting has no effect, as for a missing
/// sensor of `CMMotionManager`.
open class CMBatchedSensorManager: NSObject {
  /// Receives accelerometer batches: the samples in time order, or an error.
  public typealias AccelerometerHandler = ([CMAccelerometerData]?, (any Error)?) -> Void
  /// Receives device-motion batches: the samples in time order, or an error.
  public typealias DeviceMotionHandler = ([CMDeviceMotion]?, (any Error)?) -> Void

  /// Source time covered by one batch, s.
  public static let batchDuration: TimeInterval = 1

  private let manager: CMMotionManager
  private let accelerometerChannel = UpdateChannel<Batch<CMAccelerometerData>>(interval: 0)
  private let deviceMotionChannel = UpdateChannel<Batch<CMDeviceMotion>>(interval: 0)
  /// The serial queue every handler of this manager runs on.
  package let handlerQueue: OperationQueue

  /// Creates a manager for the process's default source (`COREMOTION_SOURCE`).
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: an app's mock subclass can
  /// call `super.init()`.
  public override init() {
    manager = CMMotionManager()
    handlerQueue = Self.makeHandlerQueue()
    super.init()
  }

  /// Creates a manager for `source`. An addition to Apple's API (simulations, recordings, tests).
  public init(source: any SensorSource) {
    manager = CMMotionManager(source: source)
    handlerQueue = Self.makeHandlerQueue()
    super.init()
  }

  /// The serial queue every handler of this manager runs on.
  private static func makeHandlerQueue() -> OperationQueue {
    let queue = OperationQueue()
    queue.name = "CMBatchedSensorManager"
    queue.maxConcurrentOperationCount = 1
    return queue
  }

  deinit {
    manager.stopAccelerometerUpdates()
    manager.stopDeviceMotionUpdates()
    accelerometerChannel.end()
    deviceMotionChannel.end()
  }

  // MARK: Availability and rates

  /// Whether the app may use the batched sensors (see ``CMAuthorizationStatus``).
  open class var authorizationStatus: CMAuthorizationStatus { CMAuthorizationStatus.current }

  /// Whether the default source has an accelerometer.
  open class var isAccelerometerSupported: Bool {
    SourceFactory.defaultSource.availableSensors.contains(.accelerometer)
  }

  /// Whether the default source can produce device motion (an accelerometer and a gyroscope).
  open class var isDeviceMotionSupported: Bool {
    SourceFactory.defaultSource.availableSensors.isSuperset(of: .inertial)
  }

  /// The accelerometer's rate in the batches, Hz: the source's fastest.
  open var accelerometerDataFrequency: Int { Self.frequency(of: manager.source) }

  /// The device-motion rate in the batches, Hz: the source's fastest.
  open var deviceMotionDataFrequency: Int { Self.frequency(of: manager.source) }

  /// The source's fastest rate, rounded, within 1 Hz … 100 kHz (a source's period is checked,
  /// not trusted).
  static func frequency(of source: any SensorSource) -> Int {
    let period = source.shortestSamplePeriod
    guard period.isFinite, period > 0 else { return 0 }
    return Int(Swift.min(Swift.max((1 / period).rounded(), 1), 100_000))
  }

  // MARK: Accelerometer

  /// Whether accelerometer batches are being collected.
  open var isAccelerometerActive: Bool { accelerometerChannel.isActive }

  /// The latest complete accelerometer batch (pull mode and push mode alike), or `nil` before the
  /// first.
  open var accelerometerBatch: [CMAccelerometerData]? { accelerometerChannel.latest?.samples }

  /// Starts collecting accelerometer batches into ``accelerometerBatch`` without a handler.
  open func startAccelerometerUpdates() {
    startAccelerometer(sink: .pull)
  }

  /// Starts accelerometer batches, each handed to `handler` on the manager's queue.
  open func startAccelerometerUpdates(handler: @escaping AccelerometerHandler) {
    startAccelerometer(
      sink: .queue(handlerQueue, { batch, error in handler(batch?.samples, error) }))
  }

  /// Stops accelerometer batches; no accelerometer handler runs after this returns.
  open func stopAccelerometerUpdates() {
    manager.stopAccelerometerUpdates()
    accelerometerChannel.end()
  }

  private func startAccelerometer(sink: UpdateChannel<Batch<CMAccelerometerData>>.Sink) {
    guard manager.isAccelerometerAvailable else { return }
    manager.accelerometerUpdateInterval = 0  // clamped to the source's fastest rate
    let collect = Self.batching(into: accelerometerChannel, sink: sink)
    manager.startAccelerometerUpdates(onDeliveryThread: collect)
  }

  /// Begins a run of `channel` and returns the handler that gathers each sample of it into
  /// batches (an error goes to the run's handler as it comes).
  private static func batching<Sample: CMLogItem>(
    into channel: UpdateChannel<Batch<Sample>>, sink: UpdateChannel<Batch<Sample>>.Sink
  ) -> (Sample?, (any Error)?) -> Void {
    let generation = channel.begin(sink: sink, nominalSourcePeriod: batchDuration)
    let collector = Locked(BatchCollector<Sample>())
    return { sample, error in
      if let error { return channel.advise(error, generation: generation) }
      guard let sample else { return }
      if let batch = collector.withLock({ $0.add(sample, at: sample.timestamp) }) {
        channel.deliver(Batch(batch), timestamp: sample.timestamp, generation: generation)
      }
    }
  }

  // MARK: Device motion

  /// Whether device-motion batches are being collected.
  open var isDeviceMotionActive: Bool { deviceMotionChannel.isActive }

  /// The latest complete device-motion batch (pull mode and push mode alike), or `nil` before the
  /// first.
  open var deviceMotionBatch: [CMDeviceMotion]? { deviceMotionChannel.latest?.samples }

  /// Starts collecting device-motion batches into ``deviceMotionBatch`` without a handler, in
  /// the `.xArbitraryZVertical` frame (Apple's manager takes no frame).
  open func startDeviceMotionUpdates() {
    startDeviceMotion(sink: .pull)
  }

  /// Starts device-motion batches, each handed to `handler` on the manager's queue.
  open func startDeviceMotionUpdates(handler: @escaping DeviceMotionHandler) {
    startDeviceMotion(
      sink: .queue(handlerQueue, { batch, error in handler(batch?.samples, error) }))
  }

  /// Stops device-motion batches; no device-motion handler runs after this returns.
  open func stopDeviceMotionUpdates() {
    manager.stopDeviceMotionUpdates()
    deviceMotionChannel.end()
  }

  private func startDeviceMotion(sink: UpdateChannel<Batch<CMDeviceMotion>>.Sink) {
    guard manager.isDeviceMotionAvailable else { return }
    manager.deviceMotionUpdateInterval = 0  // clamped to the source's fastest rate
    let collect = Self.batching(into: deviceMotionChannel, sink: sink)
    manager.startDeviceMotionUpdates(using: .xArbitraryZVertical, onDeliveryThread: collect)
  }
}

/// Samples gathered until they span ``CMBatchedSensorManager/batchDuration`` of source time.
private struct BatchCollector<Sample> {
  private var samples: [Sample] = []
  private var firstTimestamp: Double?
  /// The most samples one batch holds (a second at 10 kHz): a source with broken timestamps cannot
  /// grow a batch without bound; the batch is handed out when it is full.
  private static var capacity: Int { 10_000 }

  /// Adds `sample`; returns the finished batch when this sample completes it.
  mutating func add(_ sample: Sample, at timestamp: Double) -> [Sample]? {
    if firstTimestamp == nil { firstTimestamp = timestamp }
    samples.append(sample)
    let span = timestamp - (firstTimestamp ?? timestamp)
    // A batch covers its samples' periods: n samples one period p apart cover n·p = span + p. It
    // closes when that reaches the batch duration, within half a period of timing jitter, so one
    // second at f Hz is f samples.
    let period = samples.count > 1 ? span / Double(samples.count - 1) : 0
    guard
      span + 1.5 * period >= CMBatchedSensorManager.batchDuration || !span.isFinite
        || samples.count >= Self.capacity
    else { return nil }
    defer {
      samples = []
      firstTimestamp = nil
    }
    return samples
  }
}

/// A batch as one channel item (the channel carries class instances).
///
/// `@unchecked Sendable`: immutable after `init`; the samples are Core Motion's immutable data
/// objects.
private final class Batch<Sample>: @unchecked Sendable {
  let samples: [Sample]

  init(_ samples: [Sample]) {
    self.samples = samples
  }
}
