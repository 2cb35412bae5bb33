// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation
import Logging
import MotionDashboard

#if canImport(Glibc)
  import Glibc
#endif

/// The live dashboard served by a running daemon: the same page as `motionctl dashboard`, fed
/// through the daemon's own socket (so it shows exactly what apps get, shares the daemon's source
/// and appears in the client list), with the history panel from the daemon's store.
final class DaemonDashboard: Sendable {
  private let task: Task<Void, Never>
  private let finished: DispatchSemaphore

  /// The file holding the running dashboard's URL (with its token), next to the daemon's socket
  /// (a directory only the user can enter); removed when the dashboard stops.
  static func urlFilePath(socketPath: String) -> String {
    (socketPath as NSString).deletingLastPathComponent + "/dashboard.url"
  }

  /// Starts serving; a failure to listen is logged and leaves the daemon serving its socket.
  init(settings: DaemonDashboardSettings, daemon: MotionDaemon, logger: Logger) {
    let urlFile = Self.urlFilePath(socketPath: daemon.configuration.socketPath)
    // A file left by a daemon that was killed would point at nothing.
    unlink(urlFile)
    var configuration = DashboardConfiguration(
      host: settings.host, port: settings.port, token: DashboardConfiguration.makeToken(),
      source: .daemon(socketPath: daemon.configuration.socketPath))
    configuration.history = DaemonDashboardHistory(daemon: daemon)
    configuration.stopsSourceWhenIdle = true
    let server = DashboardServer(configuration: configuration, logger: logger)
    let finished = DispatchSemaphore(value: 0)
    self.finished = finished
    task = Task {
      do {
        try await server.run(onRunning: { url in
          let written = FileManager.default.createFile(
            atPath: urlFile, contents: Data((url.absoluteString + "\n").utf8),
            attributes: [.posixPermissions: 0o600])
          if !written { logger.warning("cannot write \(urlFile)") }
          logger.notice("dashboard at \(url.absoluteString)")
        })
      } catch is CancellationError {
      } catch {
        logger.error("dashboard not served on \(settings.host):\(settings.port): \(error)")
      }
      unlink(urlFile)
      finished.signal()
    }
  }

  /// Stops the server (closing its pages and its connection to the daemon); waits at most 5 s.
  func stop() {
    task.cancel()
    // Signalled again so that a second stop() (signal handler, then shutdown) returns at once.
    if finished.wait(timeout: .now() + 5) == .success { finished.signal() }
  }
}
