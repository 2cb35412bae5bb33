// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDaemonClient
import MotionSensors

#if os(Linux)
  import LinuxIIO
#endif

/// The one place where the composition layer reaches the concrete source implementations of other
/// modules (simulator, recording readers, IIO hardware). ``SourceFactory`` calls only these.
enum DefaultSourceFactory {
  /// The scenario `simulator` without a name plays: the built-in tour of every kind of motion.
  static let defaultScenarioName = "tour"

  /// The simulator's stream for `scenario`: a built-in scenario name (case ignored), or the path of
  /// a scenario JSON file (ending in `.json`); `nil` plays ``defaultScenarioName``.
  static func simulatorStream(scenario: String?) throws -> any SampleStream {
    let name = scenario ?? defaultScenarioName
    let path = (name as NSString).expandingTildeInPath
    // A scenario file: named *.json, or any existing file that is not a built-in name (as
    // `motionctl simulate` takes it).
    if name.lowercased().hasSuffix(".json")
      || ((try? Scenario.named(name)) == nil && FileManager.default.fileExists(atPath: path))
    {
      return SimulatedSensorStream(
        scenario: try Scenario.load(contentsOf: URL(fileURLWithPath: path)))
    }
    return SimulatedSensorStream(scenario: try Scenario.named(name))
  }

  /// A reader over the recording at `url`: format detected from its header, or one of the shared
  /// plain tables (`t,ax,ay,az[,pressure_hpa]`: specific force in m/s², or g with Apple's sign as
  /// MotionSense writes it, told apart by the first samples) read through its column mapping, in
  /// OpenCoreMotion's units like every recording.
  static func recordingStream(url: URL) throws -> any SampleStream {
    try RecordingReader.openIncludingSharedTables(url)
  }

  /// The motion sensors the IIO backend finds, or `nil` when there are none.
  ///
  /// - Throws: the backend's error when the sensors exist but cannot be read, or its configuration
  ///   (`COREMOTION_IIO_*`) is invalid.
  static func discoverHardware() throws -> (any SensorSource)? {
    #if os(Linux)
      try IIOSensorSource.discover()
    #else
      // No hardware backend on other platforms yet.
      nil
    #endif
  }

  /// A source reading from the motion daemon at `socketPath` (`nil`: the default socket).
  ///
  /// - Throws: when no daemon answers there.
  static func daemonSource(socketPath: String?) throws -> any SensorSource {
    try DaemonSource(socketPath: socketPath ?? DaemonClient.defaultSocketPath())
  }

  /// How long the automatic choice (`COREMOTION_SOURCE` unset) waits for a daemon whose socket
  /// exists to answer, s. A running daemon answers its handshake in milliseconds; one stopped
  /// (SIGSTOP) or stuck held the first use of the sensors (an app's first start of updates, which
  /// resolves the default source under its lock) for the client's default 2 s, and then the app
  /// used its own sensors all the same.
  static let daemonProbeTimeout = 0.5

  /// The daemon's source when its default socket exists and a daemon answers there within
  /// ``daemonProbeTimeout``; else no source, and why not when the socket exists (a socket left
  /// by a daemon that ended, a daemon that does not answer, one of another user).
  static func runningDaemonSource(
    environment: [String: String]
  ) -> (source: (any SensorSource)?, whyNot: String?) {
    let path = DaemonClient.defaultSocketPath(environment: environment)
    guard FileManager.default.fileExists(atPath: path) else { return (nil, nil) }
    do {
      return (try DaemonSource(socketPath: path, timeout: daemonProbeTimeout), nil)
    } catch {
      return (nil, "\(error)")
    }
  }
}
