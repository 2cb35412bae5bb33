// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionSensors

/// A `SensorSource` (MotionSensors) over the Linux IIO sensors of this machine (PinePhone,
/// Librem 5, 2-in-1 laptops, a Raspberry Pi with an I²C IMU or barometer).
///
/// Devices are found under a sysfs root (default `/sys/bus/iio/devices`, or `COREMOTION_IIO_ROOT`)
/// by their channels and identified by `name`/`label`, never by index. One reader thread serves
/// every subscriber: it starts with the first subscription and stops, restoring the buffer
/// settings and the sampling frequencies it changed, when the last one is cancelled.
///
/// Reading is buffered from `/dev/iio:deviceN` (or `COREMOTION_IIO_DEV`) when the buffer
/// attributes are writable, else sysfs polling; see ``IIOConfiguration`` for the mode, the
/// accelerometer sign convention and overrides. Samples carry seconds since boot: the buffer's
/// timestamp channel when the device has one; otherwise the records of one read are stamped back
/// from their arrival time at the device's sampling period (the last one now, each earlier one a
/// period before, never reaching back before the previous read's last stamp). Failures are
/// explicit:
/// - a busy device (another reader) falls back to polling with a ``warnings`` entry;
/// - missing permissions in buffered-only mode are a `.permissionDenied` failure naming the udev
///   rule (in automatic mode, a warning and polling); each later subscriber tries the device again,
///   so it hears the failure too, or reads once the rule is installed;
/// - a read or open that fails otherwise (an I/O error, an unparsable value) is an advisory
///   `.other` failure, reported the first time and then at powers of ten, and the device is tried
///   again every ``IIOConfiguration/recoveryInterval``;
/// - a device that disappears sends `.failure(.disconnected)` and is looked for again by name
///   every ``IIOConfiguration/recoveryInterval``; samples resume when it is back.
///
/// Only the sensors some subscriber needs are read: a device none of whose channels is needed is
/// not started (its buffer stays disabled, so the driver can power it down), and a device with
/// several sensors enables only the needed channels.
public final class IIOSensorSource: SensorSource, Sendable {
  /// `iio:` and the names of the devices read, e.g. `iio:mpu6050` or `iio:accel_3d+gyro_3d`.
  public let name: String
  public let availableSensors: SensorSet
  public let supportedSampleRates: ClosedRange<Double>
  /// What is read from which device.
  public let assignments: [IIOAssignment]
  /// The sysfs root searched.
  public let sysfsRoot: String
  /// Where the buffer character devices live.
  public let devRoot: String
  /// Mode, signs and matrices.
  public let configuration: IIOConfiguration

  let system: IIOSystem

  struct State {
    /// The requested rate of each subscriber (by its ``SubscriberFanOut`` id).
    var rates: [UInt64: Double] = [:]
    /// The sensors each subscriber needs (same ids).
    var sensors: [UInt64: SensorSet] = [:]
    /// Bumped by every subscription: a new subscriber with the rate and sensors of the others
    /// changes nothing else, and the reader thread needs to see it to try again the devices a
    /// failure left off for good (a refused permission), so that this subscriber hears why too.
    var subscriptionCount: UInt64 = 0
    /// The sensors of the devices (or channels) being read now.
    var activeSensors: SensorSet = []
    var isWorkerRunning = false
    var warnings: [String] = []
    var warningHandler: (@Sendable (String) -> Void)? = IIOSensorSource.logWarning
    var readModes: [String: IIOReadMode] = [:]
  }

  let state = Locked(State())
  /// The subscribers' handlers: in subscription order, never called after `cancel()` returns.
  let subscribers = SubscriberFanOut<SourceEvent>()
  /// Wakes the reader thread when subscribers or rates change.
  let wakePipe: (read: Int32, write: Int32)?

  /// The default sysfs root.
  public static let defaultSysfsRoot = "/sys/bus/iio/devices"
  /// The default directory of `iio:deviceN` character devices.
  public static let defaultDevRoot = "/dev"

  init(
    assignments: [IIOAssignment], sysfsRoot: String, devRoot: String,
    configuration: IIOConfiguration, system: IIOSystem
  ) {
    self.assignments = assignments
    self.sysfsRoot = sysfsRoot
    self.devRoot = devRoot
    self.configuration = configuration
    self.system = system
    self.name = "iio:" + assignments.map(\.device.name).joined(separator: "+")
    var sensors: SensorSet = []
    var low = Double.infinity
    var high = 0.0
    for assignment in assignments {
      for kind in assignment.kinds {
        sensors.formUnion(kind.sensor)
        if let bounds = assignment.device.samplingControl(for: kind)?.available?.bounds {
          low = Swift.min(low, bounds.lowerBound)
          high = Swift.max(high, bounds.upperBound)
        }
      }
    }
    self.availableSensors = sensors
    self.supportedSampleRates = low <= high ? low...high : 1...100
    self.wakePipe = system.makeWakePipe()
    // Discovery's notes change what is read (an unusable scale leaves values unscaled, an unknown
    // scan format means polling); only `motionctl sensors --iio` showed them.
    for device in assignments.map(\.device) {
      for note in device.notes { warn("iio: \(device.displayName): \(note)") }
    }
  }

  deinit {
    if let wakePipe {
      system.closeDevice(wakePipe.read)
      system.closeDevice(wakePipe.write)
    }
  }

  // MARK: Discovery

  /// Finds the IIO motion sensors of this machine; nil when there are none (no accelerometer,
  /// gyroscope, magnetometer or barometer).
  ///
  /// - Parameters:
  ///   - sysfsRoot: the IIO devices directory; nil: `COREMOTION_IIO_ROOT`, else
  ///     `/sys/bus/iio/devices`.
  ///   - devRoot: the directory of `iio:deviceN` nodes; nil: `COREMOTION_IIO_DEV`, else `/dev`.
  ///   - configuration: nil reads ``IIOConfiguration/fromEnvironment(_:)``.
  /// - Throws: ``IIOError`` when the root exists but cannot be read, or the configuration is bad.
  public static func discover(
    sysfsRoot: String? = nil, devRoot: String? = nil, configuration: IIOConfiguration? = nil
  ) throws -> IIOSensorSource? {
    try discover(
      sysfsRoot: sysfsRoot, devRoot: devRoot, configuration: configuration, system: IIOSystem())
  }

  static func discover(
    sysfsRoot: String?, devRoot: String?, configuration: IIOConfiguration?, system: IIOSystem
  ) throws -> IIOSensorSource? {
    let (root, dev) = resolveRoots(sysfsRoot, devRoot)
    let devices = try IIODiscovery(sysfsRoot: root, devRoot: dev, system: system).devices()
    let assignments = IIOAssignment.assign(devices)
    guard assignments.contains(where: { $0.kinds.contains { $0 != .temperature } }) else {
      return nil
    }
    return IIOSensorSource(
      assignments: assignments, sysfsRoot: root, devRoot: dev,
      configuration: try configuration ?? .fromEnvironment(), system: system)
  }

  /// Every IIO device with motion channels, for listings (`motionctl sensors`); same roots as
  /// ``discover(sysfsRoot:devRoot:configuration:)``.
  public static func listDevices(
    sysfsRoot: String? = nil, devRoot: String? = nil
  ) throws
    -> [IIODeviceInfo]
  {
    let (root, dev) = resolveRoots(sysfsRoot, devRoot)
    return try IIODiscovery(sysfsRoot: root, devRoot: dev, system: IIOSystem()).devices()
  }

  static func resolveRoots(_ sysfsRoot: String?, _ devRoot: String?) -> (String, String) {
    let environment = ProcessInfo.processInfo.environment
    return (
      sysfsRoot ?? environment["COREMOTION_IIO_ROOT"] ?? defaultSysfsRoot,
      devRoot ?? environment["COREMOTION_IIO_DEV"] ?? defaultDevRoot
    )
  }

  /// The devices read, in assignment order.
  public var devices: [IIODeviceInfo] { assignments.map(\.device) }

  // MARK: Status

  /// Messages about degraded operation (attributes discovery ignored, polling fallbacks,
  /// unwritable rates, reconnections), oldest first; the last 100 are kept.
  public var warnings: [String] { state.withLock { $0.warnings } }

  /// Called with each new warning on the reader thread. Default: ``logWarning`` (swift-log, label
  /// `OpenCoreMotion.LinuxIIO`, which apps redirect or silence with `LoggingSystem.bootstrap`); nil
  /// keeps them in ``warnings`` only.
  public var warningHandler: (@Sendable (String) -> Void)? {
    get { state.withLock { $0.warningHandler } }
    set { state.withLock { $0.warningHandler = newValue } }
  }

  /// The sensors read now: those of the devices (channels) some subscriber needs; empty while
  /// stopped.
  public var activeSensors: SensorSet { state.withLock { $0.activeSensors } }

  /// How each device (by name) is currently read; empty while stopped.
  public var readModes: [String: IIOReadMode] { state.withLock { $0.readModes } }

  // MARK: SensorSource

  public func subscribe(
    requestedSampleRate: Double, _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    subscribe(requestedSampleRate: requestedSampleRate, sensors: availableSensors, handler)
  }

  public func subscribe(
    requestedSampleRate: Double, sensors: SensorSet,
    _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    let rate = Swift.min(
      Swift.max(
        requestedSampleRate.isFinite ? requestedSampleRate : 0, supportedSampleRates.lowerBound),
      supportedSampleRates.upperBound)
    let (id, launch) = state.withLock { s -> (UInt64, Bool) in
      let id = subscribers.add(handler)
      s.rates[id] = rate
      s.sensors[id] = sensors.intersection(availableSensors)
      s.subscriptionCount &+= 1
      defer { s.isWorkerRunning = true }
      return (id, !s.isWorkerRunning)
    }
    if launch {
      IIOSensorSource.runningReaders.withLock { $0 += 1 }
      let thread = Thread { [self] in
        runWorker()
        IIOSensorSource.runningReaders.withLock { $0 -= 1 }
      }
      thread.name = "OpenCoreMotion.IIO(\(name))"
      thread.qualityOfService = .userInteractive
      thread.start()
    } else {
      wake()
    }
    return SourceSubscription { [weak self] in self?.unsubscribe(id) }
  }

  private func unsubscribe(_ id: UInt64) {
    subscribers.remove(id)
    state.withLock {
      _ = $0.rates.removeValue(forKey: id)
      _ = $0.sensors.removeValue(forKey: id)
    }
    wake()
  }

  func wake() {
    if let wakePipe { system.wake(wakePipe.write) }
  }

  // MARK: Delivery (reader thread)

  func deliver(_ events: [SourceEvent]) {
    guard !events.isEmpty else { return }
    subscribers.deliver(events)
  }

  /// The default ``warningHandler``: a warning through swift-log (label `OpenCoreMotion.LinuxIIO`).
  public static let logWarning: @Sendable (String) -> Void = { message in
    logger.warning("\(message)")
  }

  /// Where the backend's diagnostics go; apps choose the destination with `LoggingSystem`.
  static let logger = Logger(label: "OpenCoreMotion.LinuxIIO")

  func warn(_ message: String) {
    let handler = state.withLock { s -> (@Sendable (String) -> Void)? in
      s.warnings.append(message)
      if s.warnings.count > 100 { s.warnings.removeFirst(s.warnings.count - 100) }
      return s.warningHandler
    }
    handler?(message)
  }
}
