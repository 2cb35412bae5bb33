// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation
import Logging
import MotionDashboard
import MotionSensors

#if canImport(Glibc)
  import Glibc
#endif

/// The live dashboard served by a running daemon: the same page as `motionctl dashboard`, fed
/// through the daemon's own socket (so it shows exactly what apps get, shares the daemon's source
/// and appears in the client list), with the history panel from the daemon's store.
final class DaemonDashboard: Sendable {
  private let task: Task<Void, Never>
  private let finished: DispatchSemaphore
  /// The URL file's path and whether the dashboard has ended (stopped, or its run returned): once
  /// it has, the file is gone and is not written again.
  private let urlFile: URLFile

  /// The file holding the running dashboard's URL (with its token), next to the daemon's socket
  /// (a directory only the user can enter); removed when the dashboard stops.
  static func urlFilePath(socketPath: String) -> String {
    (socketPath as NSString).deletingLastPathComponent + "/dashboard.url"
  }

  /// Starts serving; a failure to listen is logged and leaves the daemon serving its socket.
  init(settings: DaemonDashboardSettings, daemon: MotionDaemon, logger: Logger) {
    let urlFile = URLFile(path: Self.urlFilePath(socketPath: daemon.configuration.socketPath))
    self.urlFile = urlFile
    // A file left by a daemon that was killed would point at nothing.
    unlink(urlFile.path)
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
          switch urlFile.write(url.absoluteString + "\n") {
          case .written: logger.notice("dashboard at \(url.absoluteString)")
          case .failed:
            logger.warning("cannot write \(urlFile.path)")
            logger.notice("dashboard at \(url.absoluteString)")
          // Stopped before its server ran: it is not served, so nothing is announced.
          case .ended: break
          }
        })
      } catch is CancellationError {
      } catch {
        logger.error("dashboard not served on \(settings.host):\(settings.port): \(error)")
      }
      urlFile.remove()
      finished.signal()
    }
  }

  /// Stops the server (closing its pages and its connection to the daemon); waits at most 5 s.
  ///
  /// The URL file goes first, on the calling thread: the task removes it too when the run
  /// returns, but that needs a thread of Swift concurrency's pool, and while every one was busy
  /// the file outlived the stop, so `motionctl dashboard` was sent to a port nobody served.
  func stop() {
    urlFile.remove()
    task.cancel()
    // Signalled again so that a second stop() (signal handler, then shutdown) returns at once.
    if finished.wait(timeout: .now() + 5) == .success { finished.signal() }
  }
}

extension DaemonDashboard {
  /// The URL file, written while the dashboard runs and removed, once, when it ends.
  ///
  /// One lock orders the write and the removal. A second removal does nothing, so a task ending
  /// after the stop leaves alone a file a later daemon may have written at the same path; and so
  /// a server whose start came after the stop (its task late for a pool thread) must not write
  /// the file either, since nothing would remove it then.
  final class URLFile: Sendable {
    let path: String
    /// Whether the dashboard has ended.
    private let ended = Locked(false)

    init(path: String) { self.path = path }

    /// What ``write(_:)`` did.
    enum WriteOutcome: Equatable {
      case written
      /// The file could not be created.
      case failed
      /// The dashboard had ended: nothing was written.
      case ended
    }

    /// Writes `text` (readable by the user only) unless the dashboard has ended.
    func write(_ text: String) -> WriteOutcome {
      ended.withLock { ended in
        guard !ended else { return .ended }
        let created = FileManager.default.createFile(
          atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        return created ? .written : .failed
      }
    }

    /// Ends the dashboard's file: removes it, the first time only.
    func remove() {
      ended.withLock { ended in
        guard !ended else { return }
        ended = true
        unlink(path)
      }
    }
  }
}
