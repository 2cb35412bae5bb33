// SPDX-License-Identifier: Apache-2.0

import MotionDaemonClient
import MotionSensors
import SourceComposition

/// Chooses the ``MotionHistoryBackend`` of the process.
package enum MotionHistoryBackends {
  private static let factory = Locked<@Sendable () -> any MotionHistoryBackend>({
    let source = SourceFactory.defaultSource
    let live = InProcessMotionHistory.shared(for: source)
    // On the daemon, queries and recordings go to its store (history kept while no app ran).
    if let daemon = source as? DaemonSource {
      return DaemonMotionHistory(client: daemon.client, live: live)
    }
    return live
  })
  private static let cache = Locked<(any MotionHistoryBackend)?>(nil)

  /// Replaces how the default backend is made (the daemon-backed backend installs itself here);
  /// takes effect if the default has not been made yet.
  package static func setDefaultFactory(_ make: @escaping @Sendable () -> any MotionHistoryBackend)
  {
    factory.withLock { $0 = make }
  }

  /// The backend of `CMPedometer()`, `CMMotionActivityManager()`, `CMAltimeter()` and
  /// `CMSensorRecorder()`: by default the in-process history of the default source
  /// (`COREMOTION_SOURCE`), made on first use, backed by the daemon's store when that source is
  /// the motion daemon.
  package static var `default`: any MotionHistoryBackend {
    if let existing = cache.withLock({ $0 }) { return existing }
    let made = factory.withLock { $0 }()
    return cache.withLock { cached in
      if let cached { return cached }
      cached = made
      return made
    }
  }

  /// The sensors of the default backend, without starting to observe when it has not been made:
  /// the availability class methods must not start reading sensors.
  package static var defaultSensors: SensorSet {
    cache.withLock { $0 }?.availableSensors ?? SourceFactory.defaultSource.availableSensors
  }

  /// Whether the default backend's history is authorized (see ``defaultSensors``): on the motion
  /// daemon, its privacy setting (cached by the client, see `DaemonClient.isHistoryAuthorized`).
  package static var defaultHistoryAuthorized: Bool {
    if let backend = cache.withLock({ $0 }) { return backend.isHistoryAuthorized }
    return (SourceFactory.defaultSource as? DaemonSource)?.client.isHistoryAuthorized ?? true
  }

  /// Whether the default backend counts floors (see ``defaultSensors``).
  package static var defaultCountsFloors: Bool {
    cache.withLock { $0 }?.countsFloors
      ?? (PressureAltitudeAdapter.countsFloors
        && SourceFactory.defaultSource.availableSensors.contains(.barometer))
  }
}
