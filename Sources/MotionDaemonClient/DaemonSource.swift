// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionFusion
import MotionSensors

/// The motion daemon as a `SensorSource`: `CMMotionManager` works unchanged on top of it
/// (`COREMOTION_SOURCE=daemon`, or by default when the daemon's socket exists).
///
/// Each subscription becomes one daemon subscription at the requested rate (the daemon decimates);
/// samples keep the source's exact timestamps. Device motion need not be fused again in every
/// client: `CMMotionManager` on this source takes the daemon's own fusion, which it runs once for
/// all of them, where the daemon serves it (``servesFusedMotion``). When the daemon goes away
/// subscribers receive an advisory (`isFatal` false) `SourceFailure.Kind.disconnected`; the connection comes back by itself when the daemon returns
/// and samples continue. Failures of the daemon's source keep their `isFatal`.
///
/// ``availableSensors`` and ``servesFusedMotion`` follow the daemon's source: a phone stream
/// behind the daemon that learns the phone has no gyroscope drops it, the daemon tells its
/// clients, and the advisory failure that reports it then finds the gyroscope gone here, as it
/// would on the phone stream itself: `CMMotionManager` ends device-motion and gyroscope updates
/// with `CMErrorNotAvailable` and refuses later starts.
public final class DaemonSource: SensorSource, @unchecked Sendable {
  // Sendable: the stored properties are immutable after init; `client` is thread-safe, and the
  // sensors that change are read from its server info, under its lock.
  public let name: String
  public let supportedSampleRates: ClosedRange<Double>
  /// The connection (also usable for history queries).
  public let client: DaemonClient
  /// The handshake's answer, for a client that has none (never the case once `init` returned).
  private let handshake: DaemonServerInfo

  /// The sensors the daemon's source offers now: the handshake's, as changed since by the
  /// daemon's notices (and by the handshake of each reconnection).
  public var availableSensors: SensorSet { (client.serverInfo ?? handshake).availableSensors }

  /// Whether the daemon serves its fused motion, which `CMMotionManager`'s device motion then
  /// uses; an older daemon does not, and its clients fuse raw samples themselves. Not once the
  /// daemon's source has lost its gyroscope.
  public var servesFusedMotion: Bool { (client.serverInfo ?? handshake).servesFusedMotion }

  /// Connects to the daemon at `socketPath` and learns what it serves.
  ///
  /// - Throws: ``DaemonError`` when no daemon answers within `timeout` s.
  public init(socketPath: String = DaemonClient.defaultSocketPath(), timeout: Double = 2) throws {
    client = DaemonClient(socketPath: socketPath)
    let info = try client.connect(timeout: timeout)
    name = "daemon:" + info.sourceName
    supportedSampleRates = info.supportedSampleRates
    handshake = info
  }

  public func subscribe(
    requestedSampleRate: Double, _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    subscribe(requestedSampleRate: requestedSampleRate, sensors: availableSensors, handler)
  }

  /// Subscribes to the daemon for `sensors` only, so that the daemon can switch off the sensors
  /// no client needs (a pedometer's samples keep the gyroscope off).
  public func subscribe(
    requestedSampleRate: Double, sensors: SensorSet,
    _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    let request = DaemonStreamRequest(
      sensors: sensors.intersection(availableSensors), rate: clampedRate(requestedSampleRate))
    return stream(request, handler) { event in
      guard case .sample(let sample, _) = event else { return nil }
      return .sample(sample)
    }
  }

  /// What a fused-motion subscription delivers.
  package enum FusedMotionEvent: Sendable {
    /// One estimate of the daemon's fusion, with the boot-clock time (ns) at which the daemon
    /// received the sample it came from.
    case estimate(DeviceMotionEstimate, receivedBootNanoseconds: UInt64)
    case failure(SourceFailure)
    case finished
  }

  /// Subscribes to the daemon's sensor fusion at `rate` Hz (clamped to the source's range). The
  /// daemon fuses every sample of its source once for all clients and sends each one the
  /// estimates due at its rate; the client only turns them into its reference frame.
  ///
  /// Only meaningful when ``servesFusedMotion`` is set (an older daemon sends nothing).
  package func subscribeFusedMotion(
    rate: Double, _ handler: @escaping @Sendable (FusedMotionEvent) -> Void
  ) -> SourceSubscription {
    let request = DaemonStreamRequest(rate: clampedRate(rate), fusedMotion: true)
    return stream(request, handler) { event in
      guard case .fusedMotion(let estimate, let received) = event else { return nil }
      return .estimate(estimate, receivedBootNanoseconds: received)
    }
  }

  private func clampedRate(_ rate: Double) -> Double {
    min(max(rate, supportedSampleRates.lowerBound), supportedSampleRates.upperBound)
  }

  /// Maps a daemon stream's events: `item` picks the stream's own payload, failures, the end of
  /// the source and a lost connection become the `failure`/`finished` cases of `Event`.
  private func stream<Event: SourceEventConvertible>(
    _ request: DaemonStreamRequest, _ handler: @escaping @Sendable (Event) -> Void,
    item: @escaping @Sendable (DaemonStreamEvent) -> Event?
  ) -> SourceSubscription {
    do {
      return try client.subscribe(request) { event in
        switch event {
        case .sourceFailure(let kind, let message, let isFatal):
          handler(
            .failure(
              SourceFailure(
                SourceFailure.Kind(rawValue: kind) ?? .other, message, isFatal: isFatal)))
        case .sourceFinished:
          handler(.finished)
        case .disconnected(let message):
          // The client reconnects and resubscribes by itself, and samples continue: a daemon
          // restart must not end the subscriber's run (an async sequence would finish for good).
          handler(
            .failure(SourceFailure(.disconnected, "motion daemon: " + message, isFatal: false)))
        default:
          if let converted = item(event) { handler(converted) }
        }
      }
    } catch {
      handler(.failure(SourceFailure(.disconnected, "motion daemon: \(error)")))
      return SourceSubscription(onCancel: {})
    }
  }
}

/// The two event types a daemon stream maps onto (a source's and a fused-motion subscription's).
protocol SourceEventConvertible: Sendable {
  static func failure(_ failure: SourceFailure) -> Self
  static var finished: Self { get }
}

extension SourceEvent: SourceEventConvertible {}
extension DaemonSource.FusedMotionEvent: SourceEventConvertible {}
