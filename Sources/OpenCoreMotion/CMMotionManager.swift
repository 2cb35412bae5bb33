// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDaemonClient
import MotionMath
import MotionSensors
import SourceComposition

/// Starts and stops the accelerometer, gyroscope, magnetometer and fused device-motion services of
/// one sensor source, delivering samples to handlers on an `OperationQueue` (push) or to properties
/// you poll (pull).
///
/// `CMMotionManager()` uses the process's default source, chosen by the `COREMOTION_SOURCE`
/// environment variable (see `SourceSpecification` (module SourceComposition)); ``init(source:)``
/// takes any source. Managers of the same source share one reader and one fusion filter.
///
/// Push delivery is paced by the `…UpdateInterval` properties using the samples' timestamps, one
/// operation per delivered sample. After a `stop…Updates()` call returns, no handler of that
/// service runs any more, including operations that were already queued. Services whose hardware is
/// missing do nothing when started, as on Apple devices.
///
/// Availability is read from the source each time, and may change while it runs: a phone stream
/// offers a gyroscope until it learns the phone streams none. From then on `isGyroAvailable` and
/// ``isDeviceMotionAvailable`` are `false`, and gyroscope and device-motion updates started before
/// end with `CMErrorNotAvailable` (to the handler, or as an async sequence's `error`).
open class CMMotionManager: NSObject {
  /// The sensor source this manager reads. An addition to Apple's API.
  public let source: any SensorSource

  /// The shortest update interval the source supports, s: one over its highest sample rate.
  let minimumUpdateInterval: TimeInterval
  /// The longest update interval, s: 1 s (or the minimum, for sources slower than 1 Hz).
  let maximumUpdateInterval: TimeInterval

  private let accelerometerChannel: UpdateChannel<CMAccelerometerData>
  private let gyroChannel: UpdateChannel<CMGyroData>
  private let magnetometerChannel: UpdateChannel<CMMagnetometerData>
  private let deviceMotionChannel: UpdateChannel<CMDeviceMotion>
  private let settings = Locked(Settings())

  private struct Settings {
    var attitudeReferenceFrame: CMAttitudeReferenceFrame = .xArbitraryZVertical
    var showsDeviceMovementDisplay = false
    var pipeline: DeviceMotionPipeline?
  }

  /// The default update interval before clamping, s: 0.01 (100 Hz).
  static let defaultUpdateInterval: TimeInterval = 0.01

  /// Creates a manager for the process's default source (`COREMOTION_SOURCE`).
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: an app's mock subclass can
  /// call `super.init()`.
  public override init() {
    (
      source, minimumUpdateInterval, maximumUpdateInterval, accelerometerChannel, gyroChannel,
      magnetometerChannel, deviceMotionChannel
    ) = Self.parts(for: SourceFactory.defaultSource)
    super.init()
  }

  /// Creates a manager for `source`. An addition to Apple's API (simulations, recordings, tests).
  public init(source: any SensorSource) {
    (
      self.source, minimumUpdateInterval, maximumUpdateInterval, accelerometerChannel, gyroChannel,
      magnetometerChannel, deviceMotionChannel
    ) = Self.parts(for: source)
    super.init()
  }

  /// What a manager of `source` starts with: the source, the shortest and longest update
  /// intervals it allows (s), and the four channels at the starting interval (100 Hz within
  /// those bounds).
  private static func parts(
    for source: any SensorSource
  ) -> (
    any SensorSource, TimeInterval, TimeInterval, UpdateChannel<CMAccelerometerData>,
    UpdateChannel<CMGyroData>, UpdateChannel<CMMagnetometerData>, UpdateChannel<CMDeviceMotion>
  ) {
    let shortest = source.shortestSamplePeriod
    let longest = Swift.max(1, shortest)
    let interval = Swift.min(Swift.max(defaultUpdateInterval, shortest), longest)
    return (
      source, shortest, longest, UpdateChannel(interval: interval),
      UpdateChannel(interval: interval), UpdateChannel(interval: interval),
      UpdateChannel(interval: interval)
    )
  }

  deinit {
    accelerometerChannel.end()
    gyroChannel.end()
    magnetometerChannel.end()
    deviceMotionChannel.end()
  }

  // MARK: Availability

  /// Whether the source has an accelerometer.
  open var isAccelerometerAvailable: Bool { source.availableSensors.contains(.accelerometer) }
  /// Whether the source has a gyroscope.
  open var isGyroAvailable: Bool { source.availableSensors.contains(.gyroscope) }
  /// Whether the source has a magnetometer.
  open var isMagnetometerAvailable: Bool { source.availableSensors.contains(.magnetometer) }
  /// Whether device motion can be produced: the source has an accelerometer and a gyroscope (read
  /// live: a phone stream drops its gyroscope once it learns the phone streams none).
  open var isDeviceMotionAvailable: Bool { source.availableSensors.isSuperset(of: .inertial) }

  // MARK: Activity

  /// Whether accelerometer updates were started and not stopped since.
  open var isAccelerometerActive: Bool { accelerometerChannel.isActive }
  /// Whether gyroscope updates were started and not stopped since.
  open var isGyroActive: Bool { gyroChannel.isActive }
  /// Whether magnetometer updates were started and not stopped since.
  open var isMagnetometerActive: Bool { magnetometerChannel.isActive }
  /// Whether device-motion updates were started and not stopped since.
  open var isDeviceMotionActive: Bool { deviceMotionChannel.isActive }

  // MARK: Intervals

  /// Seconds between accelerometer updates; clamped to [1 / the source's highest rate, 1 s].
  /// Default: 0.01 s (or the source's shortest interval when it is slower than 100 Hz).
  open var accelerometerUpdateInterval: TimeInterval {
    get { accelerometerChannel.interval }
    set { setInterval(newValue, of: accelerometerChannel) }
  }

  /// Seconds between gyroscope updates; clamped like ``accelerometerUpdateInterval``.
  open var gyroUpdateInterval: TimeInterval {
    get { gyroChannel.interval }
    set { setInterval(newValue, of: gyroChannel) }
  }

  /// Seconds between magnetometer updates; clamped like ``accelerometerUpdateInterval``.
  open var magnetometerUpdateInterval: TimeInterval {
    get { magnetometerChannel.interval }
    set { setInterval(newValue, of: magnetometerChannel) }
  }

  /// Seconds between device-motion updates; clamped like ``accelerometerUpdateInterval``.
  open var deviceMotionUpdateInterval: TimeInterval {
    get { deviceMotionChannel.interval }
    set { setInterval(newValue, of: deviceMotionChannel) }
  }

  private func setInterval<Item>(_ interval: TimeInterval, of channel: UpdateChannel<Item>) {
    guard !interval.isNaN else { return }
    channel.interval = Swift.min(Swift.max(interval, minimumUpdateInterval), maximumUpdateInterval)
  }

  // MARK: Latest values (pull)

  /// The latest accelerometer sample, or `nil` before the first one.
  open var accelerometerData: CMAccelerometerData? { accelerometerChannel.latest }
  /// The latest raw gyroscope sample, or `nil` before the first one.
  open var gyroData: CMGyroData? { gyroChannel.latest }
  /// The latest raw magnetometer sample, or `nil` before the first one.
  open var magnetometerData: CMMagnetometerData? { magnetometerChannel.latest }
  /// The latest device-motion sample, or `nil` before the first one.
  open var deviceMotion: CMDeviceMotion? { deviceMotionChannel.latest }

  // MARK: Accelerometer

  /// Starts accelerometer updates into ``accelerometerData`` without a handler.
  open func startAccelerometerUpdates() {
    connectAccelerometer(accelerometerChannel, sink: .pull)
  }

  /// Starts accelerometer updates, one operation on `queue` per update.
  open func startAccelerometerUpdates(
    to queue: OperationQueue, withHandler handler: @escaping CMAccelerometerHandler
  ) {
    connectAccelerometer(accelerometerChannel, sink: .queue(queue, handler))
  }

  /// Starts accelerometer updates with `handler` called on the source's delivery thread (see
  /// ``startDeviceMotionUpdates(using:onDeliveryThread:)``; not Apple API).
  package final func startAccelerometerUpdates(
    onDeliveryThread handler: @escaping CMAccelerometerHandler
  ) {
    connectAccelerometer(accelerometerChannel, sink: .immediate(handler))
  }

  /// Stops accelerometer updates; no accelerometer handler runs after this returns.
  open func stopAccelerometerUpdates() {
    accelerometerChannel.end()
  }

  // MARK: Gyroscope

  /// Starts raw gyroscope updates into ``gyroData`` without a handler.
  open func startGyroUpdates() {
    connectGyro(gyroChannel, sink: .pull)
  }

  /// Starts raw gyroscope updates, one operation on `queue` per update.
  open func startGyroUpdates(to queue: OperationQueue, withHandler handler: @escaping CMGyroHandler)
  {
    connectGyro(gyroChannel, sink: .queue(queue, handler))
  }

  /// Stops gyroscope updates; no gyroscope handler runs after this returns.
  open func stopGyroUpdates() {
    gyroChannel.end()
  }

  // MARK: Magnetometer

  /// Starts raw magnetometer updates into ``magnetometerData`` without a handler.
  open func startMagnetometerUpdates() {
    connectMagnetometer(magnetometerChannel, sink: .pull)
  }

  /// Starts raw magnetometer updates, one operation on `queue` per update.
  open func startMagnetometerUpdates(
    to queue: OperationQueue, withHandler handler: @escaping CMMagnetometerHandler
  ) {
    connectMagnetometer(magnetometerChannel, sink: .queue(queue, handler))
  }

  /// Stops magnetometer updates; no magnetometer handler runs after this returns.
  open func stopMagnetometerUpdates() {
    magnetometerChannel.end()
  }

  // MARK: Device motion

  /// The reference frame of device motion: the one in use while active, else the last one used,
  /// else `.xArbitraryZVertical`. A frame that was refused (not a single frame, or not available)
  /// was not used: the previous one stays.
  open var attitudeReferenceFrame: CMAttitudeReferenceFrame {
    settings.withLock { $0.attitudeReferenceFrame }
  }

  /// Whether the system may show a calibration prompt when a north frame needs calibration motion.
  /// OpenCoreMotion has no system display: when set, the request (also delivered once to the
  /// handler as `CMErrorDeviceRequiresMovement`) is logged at notice level to the swift-log logger
  /// `OpenCoreMotion` (standard error unless the app bootstraps `LoggingSystem`). Default: `false`.
  open var showsDeviceMovementDisplay: Bool {
    get { settings.withLock { $0.showsDeviceMovementDisplay } }
    set { settings.withLock { $0.showsDeviceMovementDisplay = newValue } }
  }

  /// Whether the app may use motion data (iOS 27.2; see ``CMAuthorizationStatus``: set with
  /// `COREMOTION_AUTHORIZATION`, authorized by default).
  open class var authorizationStatus: CMAuthorizationStatus { CMAuthorizationStatus.current }

  /// The reference frames the default source (`COREMOTION_SOURCE`) supports: none without an
  /// accelerometer and a gyroscope; `.xArbitraryZVertical` with them; the corrected and
  /// magnetic-north frames with a magnetometer too; true north when the magnetic declination is
  /// also known.
  open class func availableAttitudeReferenceFrames() -> CMAttitudeReferenceFrame {
    attitudeReferenceFrames(
      sensors: SourceFactory.defaultSource.availableSensors, declination: currentDeclination())
  }

  /// The reference frames this manager's source supports, by the rules of
  /// ``availableAttitudeReferenceFrames()``. An addition to Apple's API, for managers made with
  /// ``init(source:)``.
  open var supportedAttitudeReferenceFrames: CMAttitudeReferenceFrame {
    Self.attitudeReferenceFrames(
      sensors: source.availableSensors, declination: Self.currentDeclination())
  }

  /// Starts device-motion updates into ``deviceMotion`` in ``attitudeReferenceFrame``.
  open func startDeviceMotionUpdates() {
    startDeviceMotionUpdates(using: attitudeReferenceFrame)
  }

  /// Starts device-motion updates in ``attitudeReferenceFrame``, one operation on `queue` per
  /// update.
  open func startDeviceMotionUpdates(
    to queue: OperationQueue, withHandler handler: @escaping CMDeviceMotionHandler
  ) {
    startDeviceMotionUpdates(using: attitudeReferenceFrame, to: queue, withHandler: handler)
  }

  /// Starts device-motion updates into ``deviceMotion`` in `referenceFrame`.
  open func startDeviceMotionUpdates(using referenceFrame: CMAttitudeReferenceFrame) {
    connectDeviceMotion(deviceMotionChannel, frame: referenceFrame, sink: .pull)
  }

  /// Starts device-motion updates in `referenceFrame`, one operation on `queue` per update.
  ///
  /// A frame the source cannot provide delivers one error and no data:
  /// `CMErrorTrueNorthNotAvailable` for true north, `CMErrorNotAvailable` for the others, and
  /// `CMErrorInvalidParameter` for a value that is not exactly one frame.
  open func startDeviceMotionUpdates(
    using referenceFrame: CMAttitudeReferenceFrame, to queue: OperationQueue,
    withHandler handler: @escaping CMDeviceMotionHandler
  ) {
    connectDeviceMotion(deviceMotionChannel, frame: referenceFrame, sink: .queue(queue, handler))
  }

  /// Starts device-motion updates in `referenceFrame` with `handler` called on the source's
  /// delivery thread instead of an `OperationQueue` (not Apple API: for this package's own
  /// consumers, such as the dashboard, that feed every update to quick code and would otherwise
  /// pay a thread hop per update).
  ///
  /// The handler runs serially, never after ``stopDeviceMotionUpdates()`` returns, and delays the
  /// source's other subscribers while it runs: it must not block.
  ///
  /// `final`: a method of this `open` class that is not final takes a slot in its dispatch table,
  /// and code built against the old table calls the wrong method when an incremental build misses
  /// the change (seen with the examples, which reach this module through `CoreMotion`).
  package final func startDeviceMotionUpdates(
    using referenceFrame: CMAttitudeReferenceFrame,
    onDeliveryThread handler: @escaping CMDeviceMotionHandler
  ) {
    connectDeviceMotion(deviceMotionChannel, frame: referenceFrame, sink: .immediate(handler))
  }

  /// Stops device-motion updates; no device-motion handler runs after this returns.
  open func stopDeviceMotionUpdates() {
    deviceMotionChannel.end()
  }
}

// MARK: - Plumbing shared by the handler API and the async sequences

extension CMMotionManager {
  /// Starts `channel` on the accelerometer; returns `false` (doing nothing) without one.
  @discardableResult
  func connectAccelerometer(
    _ channel: UpdateChannel<CMAccelerometerData>, sink: UpdateChannel<CMAccelerometerData>.Sink
  ) -> Bool {
    connectRaw(channel, sensor: .accelerometer, sink: sink) { sample in
      guard let force = sample.accelerometer, force.isFinite else { return nil }
      return CMAccelerometerData(
        acceleration: CMAcceleration(Units.coreMotionAcceleration(fromSpecificForce: force)),
        timestamp: sample.timestamp)
    }
  }

  /// Starts `channel` on the gyroscope; returns `false` (doing nothing) without one.
  @discardableResult
  func connectGyro(
    _ channel: UpdateChannel<CMGyroData>, sink: UpdateChannel<CMGyroData>.Sink
  ) -> Bool {
    connectRaw(channel, sensor: .gyroscope, sink: sink) { sample in
      guard let rate = sample.gyroscope, rate.isFinite else { return nil }
      return CMGyroData(rotationRate: CMRotationRate(rate), timestamp: sample.timestamp)
    }
  }

  /// Starts `channel` on the magnetometer; returns `false` (doing nothing) without one.
  @discardableResult
  func connectMagnetometer(
    _ channel: UpdateChannel<CMMagnetometerData>, sink: UpdateChannel<CMMagnetometerData>.Sink
  ) -> Bool {
    connectRaw(channel, sensor: .magnetometer, sink: sink) { sample in
      guard let field = sample.magnetometer, field.isFinite else { return nil }
      return CMMagnetometerData(magneticField: CMMagneticField(field), timestamp: sample.timestamp)
    }
  }

  private func connectRaw<Item>(
    _ channel: UpdateChannel<Item>, sensor: SensorSet, sink: UpdateChannel<Item>.Sink,
    make: @escaping @Sendable (MotionSample) -> Item?
  ) -> Bool {
    guard source.availableSensors.contains(sensor) else { return false }
    let generation = channel.begin(sink: sink, nominalSourcePeriod: minimumUpdateInterval)
    let loss = Locked(false)
    // Only this sensor: a source that can switch sensors off (IIO, the daemon) keeps the others
    // off while nobody else needs them. Each event comes with the number of the subscription
    // that delivered it.
    let handler: @Sendable (SourceEvent, UInt64) -> Void = { [source] event, subscription in
      switch event {
      case .sample(let sample):
        guard sample.sensors.contains(sensor) else { return }
        channel.offer(timestamp: sample.timestamp, generation: generation) { make(sample) }
      case .failure(let failure):
        channel.report(failure, generation: generation, subscription: subscription)
        if let missing = CMMotionManager.newlyMissing(
          sensor, available: source.availableSensors, reported: loss)
        {
          channel.fail(
            NSError(CMErrorNotAvailable, description: "\(source.name) has no \(missing)"),
            generation: generation)
        }
      case .finished:
        channel.finish(generation: generation)
      }
    }
    channel.attach(generation: generation) { [source] rate, subscription in
      source.subscribe(requestedSampleRate: rate, sensors: sensor) { handler($0, subscription) }
    }
    return true
  }

  /// Starts `channel` on device motion in `frame`; returns `false` (doing nothing) when device
  /// motion is unavailable. An unavailable frame reports one error to the sink and delivers
  /// nothing.
  @discardableResult
  func connectDeviceMotion(
    _ channel: UpdateChannel<CMDeviceMotion>, frame: CMAttitudeReferenceFrame,
    sink: UpdateChannel<CMDeviceMotion>.Sink
  ) -> Bool {
    guard isDeviceMotionAvailable else { return false }
    let generation = channel.begin(sink: sink, nominalSourcePeriod: minimumUpdateInterval)
    let declination = frame == .xTrueNorthZVertical ? Self.currentDeclination() : nil
    let frames = Self.attitudeReferenceFrames(
      sensors: source.availableSensors, declination: declination)
    guard frame.isSingleFrame else {
      channel.fail(
        NSError(
          CMErrorInvalidParameter, description: "\(frame.name) is not a single reference frame"),
        generation: generation)
      return true
    }
    guard frames.contains(frame) else {
      let isTrueNorth = frame == .xTrueNorthZVertical
      let reason =
        !source.availableSensors.contains(.magnetometer)
        ? "\(source.name) has no magnetometer, which \(frame.name) needs"
        : "true north needs the location: set COREMOTION_LOCATION=lat,lon[,altitude_m]"
      channel.fail(
        NSError(
          isTrueNorth ? CMErrorTrueNorthNotAvailable : CMErrorNotAvailable, description: reason),
        generation: generation)
      return true
    }
    // Only a frame that runs is the one in use (and the one a start without a frame uses next):
    // a refused one, such as the whole set of available frames, would refuse every later start.
    if channel === deviceMotionChannel {
      settings.withLock { $0.attitudeReferenceFrame = frame }
    }
    let aligner = ReferenceFrameAligner(frame: frame, declination: declination ?? 0)
    let movementRequest = CalibrationMovementRequest(
      appliesTo: frame, showsDisplay: showsDeviceMovementDisplay)
    let loss = Locked(false)
    // Every frame but the arbitrary one reads the magnetometer: a source that drops it (a phone
    // experiment without one) would otherwise leave the run going on the gyroscope alone, its
    // heading drifting while it claims a magnetic reference.
    let needed: SensorSet =
      frame == .xArbitraryZVertical ? .inertial : SensorSet.inertial.union(.magnetometer)
    // Each event comes with the number of the subscription that delivered it, for the daemon's
    // fused motion (which subscribes again when the interval changes), else `nil`.
    let consumer: @Sendable (DeviceMotionPipeline.Event, UInt64?) -> Void = {
      [source] event, subscription in
      switch event {
      case .estimate(let estimate):
        if let error = movementRequest.check(estimate) {
          channel.advise(error, generation: generation)
        }
        // Checked before pacing, so that the first update comes with the first usable estimate.
        guard aligner.accepts(estimate) else { return }
        channel.offer(timestamp: estimate.timestamp, generation: generation) {
          aligner.deviceMotion(from: estimate)
        }
      case .failure(let failure):
        // After a lost connection the estimates may come from a new estimator (a restarted
        // motion daemon): the arbitrary frame's yaw carries on rather than jump. On whichever
        // thread tells the failure, which need not be the one delivering the estimates (the
        // aligner locks its state: see there).
        if failure.kind == .disconnected { aligner.continueHeadingAfterGap() }
        channel.report(failure, generation: generation, subscription: subscription)
        if let missing = CMMotionManager.newlyMissing(
          needed, available: source.availableSensors, reported: loss)
        {
          let reason =
            source.availableSensors.isSuperset(of: .inertial)
            ? "\(source.name) has no \(missing), which \(frame.name) needs"
            : "\(source.name) has no \(missing): device motion is not available"
          channel.fail(NSError(CMErrorNotAvailable, description: reason), generation: generation)
        }
      case .finished:
        channel.finish(generation: generation)
      }
    }
    if let daemon = source as? DaemonSource, daemon.servesFusedMotion {
      channel.attach(generation: generation) { rate, subscription in
        Self.subscribeFusedMotion(of: daemon, rate: rate) { consumer($0, subscription) }
      }
    } else {
      channel.attach(pipeline.subscribe { consumer($0, nil) }, generation: generation)
    }
    return true
  }

  /// The names of `sensors` that are not among `available` (a source's or a history backend's
  /// sensors now) (`"gyroscope"`), the first time a run finds them gone (`reported` is that run's
  /// flag), else `nil`. `CMAltimeter` ends its runs by the same rule.
  ///
  /// Checked at each failure the source reports: a phone stream offers a gyroscope until it
  /// learns the phone has none, then drops it from its available sensors and says so with an
  /// advisory failure. A run started before then would otherwise wait for ever in silence; it
  /// ends with `CMErrorNotAvailable` instead, as a fatal failure would end it, and a start after
  /// then is refused like on a device without the sensor.
  static func newlyMissing(
    _ sensors: SensorSet, available: SensorSet, reported: Locked<Bool>
  ) -> String? {
    let missing = sensors.subtracting(available)
    guard !missing.isEmpty else { return nil }
    let isFirst = reported.withLock { wasReported -> Bool in
      defer { wasReported = true }
      return !wasReported
    }
    return isFirst ? missing.names.joined(separator: " and ") : nil
  }

  /// Fusion estimates for one run of device-motion updates at `rate` Hz from the motion daemon's
  /// own fusion (fused once there for every app, and decimated there to this run's rate). Other
  /// sources' runs read the fusion pipeline this process shares, at the source's full rate.
  private static func subscribeFusedMotion(
    of daemon: DaemonSource, rate: Double, _ consumer: @escaping DeviceMotionPipeline.Consumer
  ) -> SourceSubscription {
    daemon.subscribeFusedMotion(rate: rate) { event in
      switch event {
      case .estimate(let estimate, _): consumer(.estimate(estimate))
      case .failure(let failure): consumer(.failure(failure))
      case .finished: consumer(.finished)
      }
    }
  }

  /// The fusion pipeline shared by every manager of this source.
  private var pipeline: DeviceMotionPipeline {
    settings.withLock { s in
      if let pipeline = s.pipeline { return pipeline }
      let pipeline = DeviceMotionPipeline.shared(for: source)
      s.pipeline = pipeline
      return pipeline
    }
  }

  // MARK: Reference frames

  package static func attitudeReferenceFrames(
    sensors: SensorSet, declination: Double?
  ) -> CMAttitudeReferenceFrame {
    guard sensors.isSuperset(of: .inertial) else { return [] }
    var frames: CMAttitudeReferenceFrame = .xArbitraryZVertical
    if sensors.contains(.magnetometer) {
      frames.formUnion([.xArbitraryCorrectedZVertical, .xMagneticNorthZVertical])
      if declination != nil { frames.insert(.xTrueNorthZVertical) }
    }
    return frames
  }
}

extension SensorSource {
  /// One over the source's highest sample rate, s (0.01 s for a source that reports no usable
  /// rate): the shortest update interval and the sample spacing assumed until samples show it.
  package var shortestSamplePeriod: Double {
    let rate = supportedSampleRates.upperBound
    return rate > 0 && rate.isFinite ? 1 / rate : 0.01
  }
}
