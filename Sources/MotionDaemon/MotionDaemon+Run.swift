// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation
import Logging
import MotionSensors
import OpenCoreMotion
import SourceComposition

#if canImport(Glibc)
  import Glibc
#endif

extension MotionDaemon {
  /// An error that stops the daemon from starting, with a message for people.
  public struct StartError: Error, CustomStringConvertible {
    public var description: String
  }

  /// Opens the source named by `sourceText` (a `COREMOTION_SOURCE` value; `nil` reads the
  /// environment, and unset means real hardware if any, as for apps), starts a daemon and serves
  /// until SIGTERM or SIGINT, then shuts down cleanly.
  ///
  /// The daemon never uses itself as its source: `daemon` is refused. With `dashboard` it also
  /// serves the live dashboard (with the history panel) until it stops.
  public static func runUntilSignalled(
    sourceText: String?, configuration: DaemonConfiguration,
    dashboard: DaemonDashboardSettings? = nil,
    logger: Logger
  ) throws {
    let specification: SourceSpecification
    do {
      if let sourceText {
        specification = try SourceSpecification(parsing: sourceText)
      } else {
        specification = try SourceSpecification.fromEnvironment()
      }
    } catch {
      throw StartError(description: "\(error)")
    }
    if case .daemon = specification {
      throw StartError(
        description:
          "motiond cannot use the daemon as its own source; choose simulator, replay:…, iio, …")
    }
    let source: any SensorSource
    do { source = try SourceFactory.makeSource(specification) } catch {
      throw StartError(description: "\(error)")
    }
    let daemon = MotionDaemon(source: source, configuration: configuration, logger: logger)
    // The history files and socket are private to the user whatever umask the service manager set.
    umask(0o077)
    signal(SIGTERM, SIG_IGN)
    signal(SIGINT, SIG_IGN)
    signal(SIGPIPE, SIG_IGN)
    let queue = DispatchQueue(label: "motiond.signals")
    // The shutdown runs on a queue of its own, so that the signal queue stays free: a second
    // signal while a shutdown hangs (a source that does not stop) ends the process at once.
    let shutdownQueue = DispatchQueue(label: "motiond.shutdown")
    let shuttingDown = Locked(false)
    let server = Locked<DaemonDashboard?>(nil)
    let sources = [SIGTERM, SIGINT].map { number -> any DispatchSourceSignal in
      let signalSource = DispatchSource.makeSignalSource(signal: number, queue: queue)
      signalSource.setEventHandler {
        let isFirst = shuttingDown.withLock { started -> Bool in
          defer { started = true }
          return !started
        }
        guard isFirst else {
          logger.warning("received signal \(number) again while shutting down; exiting now")
          signal(number, SIG_DFL)
          raise(number)
          return
        }
        logger.notice("received signal \(number); shutting down")
        shutdownQueue.async {
          // The dashboard first: it is a client of the daemon and would otherwise reconnect.
          server.withLock { $0 }?.stop()
          daemon.stop()
        }
      }
      signalSource.resume()
      return signalSource
    }
    do { try daemon.start() } catch {
      throw StartError(description: "cannot listen on \(configuration.socketPath): \(error)")
    }
    if let dashboard {
      let started = DaemonDashboard(settings: dashboard, daemon: daemon, logger: logger)
      server.withLock { $0 = started }
    } else {
      // A file left by an earlier daemon with a dashboard would point at nothing.
      unlink(DaemonDashboard.urlFilePath(socketPath: configuration.socketPath))
    }
    daemon.waitUntilStopped()
    server.withLock { $0 }?.stop()
    for signalSource in sources { signalSource.cancel() }
  }
}
