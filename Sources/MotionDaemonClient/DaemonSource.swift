// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

/// The motion daemon as a ``SensorSource``: `CMMotionManager` works unchanged on top of it
/// (`COREMOTION_SOURCE=daemon`, or by default when the daemon's socket exists).
///
/// Each subscription becomes one daemon subscription at the requested rate (the daemon decimates);
/// samples keep the source's exact timestamps. When the daemon goes away subscribers receive
/// ``SourceFailure/Kind/disconnected``; the connection comes back by itself when the daemon returns
/// and samples continue.
public final class DaemonSource: SensorSource, @unchecked Sendable {
  // Sendable: immutable after init; `client` is thread-safe.
  public let name: String
  public let availableSensors: SensorSet
  public let supportedSampleRates: ClosedRange<Double>
  /// The connection (also usable for history queries).
  public let client: DaemonClient

  /// Connects to the daemon at `socketPath` and learns what it serves.
  ///
  /// - Throws: ``DaemonError`` when no daemon answers within `timeout` s.
  public init(socketPath: String = DaemonClient.defaultSocketPath(), timeout: Double = 2) throws {
    client = DaemonClient(socketPath: socketPath)
    let info = try client.connect(timeout: timeout)
    name = "daemon:" + info.sourceName
    availableSensors = info.availableSensors
    supportedSampleRates = info.supportedSampleRates
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
    let rate = min(
      max(requestedSampleRate, supportedSampleRates.lowerBound), supportedSampleRates.upperBound)
    let request = DaemonStreamRequest(sensors: sensors.intersection(availableSensors), rate: rate)
    do {
      return try client.subscribe(request) { event in
        switch event {
        case .sample(let sample, _):
          handler(.sample(sample))
        case .sourceFailure(let kind, let message):
          handler(.failure(SourceFailure(SourceFailure.Kind(rawValue: kind) ?? .other, message)))
        case .sourceFinished:
          handler(.finished)
        case .disconnected(let message):
          handler(.failure(SourceFailure(.disconnected, "motion daemon: " + message)))
        case .dropped, .reconnected, .pedometer, .activity, .altitude:
          break
        }
      }
    } catch {
      handler(.failure(SourceFailure(.disconnected, "motion daemon: \(error)")))
      return SourceSubscription(onCancel: {})
    }
  }
}
