// SPDX-License-Identifier: Apache-2.0

/// A live supplier of motion samples: hardware, a network stream, or a paced recording or
/// simulation.
///
/// A source serves any number of subscribers from one underlying reader ("one reader per device,
/// however many managers"). It starts reading when the first subscriber arrives and stops when the
/// last one cancels. Each subscriber receives every sample in timestamp order, serially, on the
/// source's own delivery context (never concurrently with itself); subscribers must not block.
public protocol SensorSource: AnyObject, Sendable {
  /// A short name for messages and listings (`simulator:tour`, `replay:walk.csv`, `iio:mpu6050`).
  var name: String { get }

  /// The sensors this source can deliver. A sensor missing here is "not available" to
  /// `CMMotionManager`.
  ///
  /// It may shrink while the source runs: a phone stream offers a gyroscope until it learns that
  /// the phone streams none. Read it when it matters rather than once. A source that drops a
  /// sensor does so before it tells its subscribers (an advisory ``SourceFailure``), so that a
  /// subscriber told reads the new set; `CMMotionManager` then ends the updates that needed it.
  var availableSensors: SensorSet { get }

  /// The sample rates in Hz the source can deliver; update intervals are clamped to this range.
  var supportedSampleRates: ClosedRange<Double> { get }

  /// How the source's inertial samples were taken, for the fusion (default:
  /// ``SampleTiming/sensorOutputs``; a recording of Core Motion's device motion says so).
  var sampleTiming: SampleTiming { get }

  /// Starts delivering events to `handler` until the returned subscription is cancelled.
  ///
  /// - Parameter requestedSampleRate: the rate in Hz the subscriber would like; the source uses the
  ///   highest rate any subscriber asked for, within ``supportedSampleRates``. Sources with a fixed
  ///   rate ignore it.
  func subscribe(
    requestedSampleRate: Double, _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription

  /// Starts delivering events to `handler`, saying which sensors the subscriber needs.
  ///
  /// A source that can switch sensors on and off keeps on only the sensors some subscriber needs
  /// (a pedometer needs the accelerometer, not the gyroscope), and delivers samples with only
  /// those readings. The default implementation (sources that cannot) subscribes to everything,
  /// so a subscriber must still ignore readings it did not ask for.
  ///
  /// - Parameter sensors: the sensors this subscriber reads (intersected with
  ///   ``availableSensors``).
  func subscribe(
    requestedSampleRate: Double, sensors: SensorSet,
    _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription
}

extension SensorSource {
  /// Sensor outputs: what live sensors and most recordings deliver.
  public var sampleTiming: SampleTiming { .sensorOutputs }

  public func subscribe(
    requestedSampleRate: Double, sensors: SensorSet,
    _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    subscribe(requestedSampleRate: requestedSampleRate, handler)
  }
}

/// What a source delivers to its subscribers.
public enum SourceEvent: Sendable {
  /// A new sample.
  case sample(MotionSample)
  /// The source failed (device gone, stream malformed, …). Live sources may recover and continue
  /// with samples afterwards; a finished recording does not.
  case failure(SourceFailure)
  /// The source has no more samples (end of a recording or scenario).
  case finished
}

/// A failure reported by a source, with a message meant for people.
public struct SourceFailure: Error, Sendable, Equatable, CustomStringConvertible {
  /// What kind of failure this is.
  public enum Kind: String, Sendable, Equatable {
    /// The data could not be read or parsed.
    case malformedData
    /// The device or stream went away.
    case disconnected
    /// Access was refused (permissions).
    case permissionDenied
    /// The device is in use by another reader.
    case busy
    /// Anything else.
    case other
  }

  /// What kind of failure this is, for code that reacts to it (a busy device retried, a denied one
  /// reported).
  public var kind: Kind
  /// What happened, for people: names the device, file or peer and the cause.
  public var message: String
  /// Whether the source cannot go on after this failure (default `true`). Advisory failures
  /// (`false`) report something a person should know while samples keep flowing: samples dropped
  /// for arriving late, a phone platform that cannot be told yet, one malformed message from the
  /// network. A session should end only on a fatal failure or the end of the source.
  public var isFatal: Bool

  /// A failure of `kind` described by `message`; fatal unless `isFatal` is `false`.
  public init(_ kind: Kind, _ message: String, isFatal: Bool = true) {
    self.kind = kind
    self.message = message
    self.isFatal = isFatal
  }

  public var description: String { message }
}

/// A handle to a subscription; cancelling it stops delivery. Cancelling twice is harmless.
/// When `cancel()` returns, the handler is not running and will not run again.
public final class SourceSubscription: Sendable {
  private let lock = Locked(false)
  private let onCancel: @Sendable () -> Void

  public init(onCancel: @escaping @Sendable () -> Void) {
    self.onCancel = onCancel
  }

  /// Stops delivery to this subscription's handler.
  public func cancel() {
    let alreadyCancelled = lock.withLock { cancelled -> Bool in
      defer { cancelled = true }
      return cancelled
    }
    if !alreadyCancelled { onCancel() }
  }

  /// Whether ``cancel()`` has been called.
  public var isCancelled: Bool { lock.withLock { $0 } }

  deinit { cancel() }
}

/// A source with no sensors at all (`COREMOTION_SOURCE=none`): every sensor is unavailable.
public final class EmptySensorSource: SensorSource {
  public init() {}
  public var name: String { "none" }
  public var availableSensors: SensorSet { [] }
  public var supportedSampleRates: ClosedRange<Double> { 1...100 }
  public func subscribe(
    requestedSampleRate: Double, _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    SourceSubscription(onCancel: {})
  }
}
