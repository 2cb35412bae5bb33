// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

/// Reports altitude changes (and, where a reference is known, altitude above sea level) from the
/// barometer.
///
/// Events come at regular intervals (`updateInterval`, 1 s of source time) whether or not the
/// altitude changed. Relative altitude is the standard-atmosphere height difference of the
/// pressure readings, relative to the first event of the updates (which reports 0). A second start
/// replaces the handler (and starts again from 0); after a stop returns, no handler of that service
/// runs any more, unless the stop was called from inside a handler of another Core Motion service:
/// it then does not wait for a handler of that service already running on another thread (two
/// handlers stopping each other's service would wait for each other for ever), which may finish
/// after the stop returns; no later one starts.
open class CMAltimeter: NSObject {
  package let backend: any MotionHistoryBackend
  private let relativeChannel = UpdateChannel<CMAltitudeData>(interval: CMAltimeter.updateInterval)
  private let absoluteChannel = UpdateChannel<CMAbsoluteAltitudeData>(
    interval: CMAltimeter.updateInterval)

  /// Seconds of source time between events.
  static let updateInterval: Double = 1

  /// Creates an altimeter for the process's default source.
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: an app's mock subclass can
  /// call `super.init()` or inherit it.
  public override init() {
    backend = MotionHistoryBackends.default
    super.init()
  }

  /// Creates an altimeter for `source`. An addition to Apple's API (simulations, recordings,
  /// tests).
  public convenience init(source: any SensorSource) {
    self.init(backend: InProcessMotionHistory.shared(for: source))
  }

  package init(backend: any MotionHistoryBackend) {
    self.backend = backend
    super.init()
  }

  deinit {
    relativeChannel.end()
    absoluteChannel.end()
  }

  /// Whether relative altitude is available: the default source has a barometer.
  open class func isRelativeAltitudeAvailable() -> Bool {
    MotionHistoryBackends.defaultSensors.contains(.barometer)
  }

  /// Whether absolute altitude is available: the default source has a barometer and a sea-level
  /// pressure or the device's altitude is known (see `AltitudeReference`).
  open class func isAbsoluteAltitudeAvailable() -> Bool {
    isRelativeAltitudeAvailable() && AltitudeReference.current() != nil
  }

  /// Whether the app may use the altimeter (see ``CMAuthorizationStatus``).
  open class func authorizationStatus() -> CMAuthorizationStatus { .processDefault }

  /// Starts relative-altitude updates on `queue`. Does nothing without a barometer, as on Apple
  /// devices; delivers `CMErrorMotionActivityNotAuthorized` when not authorized. A source that
  /// finds out later that it has no barometer (a phone stream) ends the updates with
  /// `CMErrorNotAvailable`, as it does absolute-altitude updates.
  open func startRelativeAltitudeUpdates(
    to queue: OperationQueue, withHandler handler: @escaping CMAltitudeHandler
  ) {
    connectRelative(relativeChannel, sink: .queue(queue, handler))
  }

  /// Stops relative-altitude updates; no handler runs after this returns (unless it is called from
  /// inside another service's handler while one is running: see ``CMAltimeter``).
  open func stopRelativeAltitudeUpdates() {
    relativeChannel.end()
  }

  /// Starts absolute-altitude updates on `queue`. Without a barometer or an altitude reference the
  /// handler receives `CMErrorNotAvailable` once.
  ///
  /// With the device's altitude as the reference, the barometer is pinned to it for up to an hour:
  /// the first reading taken with that altitude is at it, and every later start within the hour
  /// (of this altimeter or another one of the same source) reads the altitude change since, so
  /// updates started again three floors up read three floors up. Setting another altitude, or
  /// starting more than an hour later (weather drift), pins it afresh (see `AltitudeReference`).
  open func startAbsoluteAltitudeUpdates(
    to queue: OperationQueue, withHandler handler: @escaping CMAbsoluteAltitudeHandler
  ) {
    connectAbsolute(
      absoluteChannel, reference: AltitudeReference.current(), sink: .queue(queue, handler))
  }

  /// Stops absolute-altitude updates; no handler runs after this returns (unless it is called from
  /// inside another service's handler while one is running: see ``CMAltimeter``).
  open func stopAbsoluteAltitudeUpdates() {
    absoluteChannel.end()
  }

  // MARK: Plumbing shared with the async sequences

  private var hasBarometer: Bool { backend.availableSensors.contains(.barometer) }

  /// Starts `channel`; returns `false` (doing nothing) without a barometer.
  @discardableResult
  func connectRelative(
    _ channel: UpdateChannel<CMAltitudeData>, sink: UpdateChannel<CMAltitudeData>.Sink
  ) -> Bool {
    guard hasBarometer else { return false }
    if CMAuthorizationStatus.status(for: backend) != .authorized {
      channel.refuse(
        NSError(CMErrorMotionActivityNotAuthorized, description: "the altimeter is not authorized"),
        sink: sink)
      return true
    }
    channel.interval = Self.updateInterval
    // The altitude of the first event of this run, m.
    let origin = Locked<Double?>(nil)
    let barometerLoss = Locked(false)
    let backend = backend
    channel.connect(to: backend, sink: sink) { event, generation in
      switch event {
      case .altitude(let record):
        channel.offer(timestamp: record.timestamp, generation: generation) {
          let reference = origin.withLock { o in
            if o == nil { o = record.altitude }
            return o ?? record.altitude
          }
          return CMAltitudeData(
            relativeAltitude: record.altitude - reference, pressure: record.pressure,
            timestamp: record.timestamp)
        }
      case .finished:
        channel.finish(generation: generation)
      case .failure(let failure):
        channel.report(failure, generation: generation)
        Self.endIfBarometerIsGone(channel, backend: backend, reported: barometerLoss, generation)
      default:
        break
      }
    }
    return true
  }

  /// Ends run `generation` with `CMErrorNotAvailable` the first time a failure finds the barometer
  /// gone from `backend` (`reported` is that run's flag).
  ///
  /// A phone stream offers a barometer until it learns the phone's experiment has none, then
  /// drops it and says so with an advisory failure: updates started before then would otherwise
  /// wait for ever in silence. `CMMotionManager` ends its runs the same way.
  private static func endIfBarometerIsGone<Item>(
    _ channel: UpdateChannel<Item>, backend: any MotionHistoryBackend, reported: Locked<Bool>,
    _ generation: UInt64
  ) {
    guard
      let missing = CMMotionManager.newlyMissing(
        .barometer, available: backend.availableSensors, reported: reported)
    else { return }
    channel.fail(
      NSError(CMErrorNotAvailable, description: "\(backend.name) has no \(missing)"),
      generation: generation)
  }

  /// Starts `channel` with `reference`; an unavailable service reports `CMErrorNotAvailable`.
  func connectAbsolute(
    _ channel: UpdateChannel<CMAbsoluteAltitudeData>, reference: AltitudeReference?,
    sink: UpdateChannel<CMAbsoluteAltitudeData>.Sink
  ) {
    guard hasBarometer, let reference else {
      let reason =
        hasBarometer
        ? "no altitude reference: set \(AltitudeReference.seaLevelPressureVariable)=kPa "
          + "or COREMOTION_LOCATION=lat,lon,altitude_m"
        : "\(backend.name) has no barometer"
      return channel.refuse(
        NSError(CMErrorNotAvailable, description: "absolute altitude is not available: " + reason),
        sink: sink)
    }
    if CMAuthorizationStatus.status(for: backend) != .authorized {
      return channel.refuse(
        NSError(CMErrorMotionActivityNotAuthorized, description: "the altimeter is not authorized"),
        sink: sink)
    }
    channel.interval = Self.updateInterval
    // For a start altitude: the offset from the standard-atmosphere height to the altitude, m,
    // from the backend's anchor at this run's first reading (kept for the run: a location set
    // meanwhile is for the next start).
    let offset = Locked<Double?>(nil)
    let barometerLoss = Locked(false)
    // Not `self.backend` in the handler: the channel this altimeter owns keeps the handler.
    let backend = backend
    channel.connect(to: backend, sink: sink) { event, generation in
      switch event {
      case .altitude(let record):
        channel.offer(timestamp: record.timestamp, generation: generation) {
          let altitude: Double
          switch reference {
          case .seaLevelPressure(let seaLevel):
            altitude = PressureAltitudeAdapter.standardHeight(
              pressure: record.pressure, seaLevelPressure: seaLevel)
          case .startAltitude(let start):
            let height = PressureAltitudeAdapter.standardHeight(pressure: record.pressure)
            let shift = offset.withLock { o in
              if o == nil {
                let anchor = backend.pressure(
                  atStartAltitude: start, reading: record.pressure, date: record.date)
                o = start - PressureAltitudeAdapter.standardHeight(pressure: anchor)
              }
              return o ?? 0
            }
            altitude = height + shift
          }
          return CMAbsoluteAltitudeData(
            altitude: altitude, accuracy: AltitudeReference.accuracy,
            precision: AltitudeReference.precision,
            timestamp: record.timestamp)
        }
      case .finished:
        channel.finish(generation: generation)
      case .failure(let failure):
        channel.report(failure, generation: generation)
        Self.endIfBarometerIsGone(channel, backend: backend, reported: barometerLoss, generation)
      default:
        break
      }
    }
  }
}
