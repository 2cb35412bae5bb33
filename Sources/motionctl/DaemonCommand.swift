// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import Logging
import MotionDaemon

/// `motionctl daemon`: runs the motion daemon in the foreground (same as `motiond`).
struct DaemonCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "daemon",
    abstract: "Run the motion daemon in the foreground (share sensors, keep motion history).")

  @Option(
    help:
      "The sensor source (a COREMOTION_SOURCE value; default: COREMOTION_SOURCE, else hardware).")
  var source: String?

  @Option(
    help: "The Unix socket to listen on (default: $XDG_RUNTIME_DIR/opencoremotion/motiond.sock).")
  var socket: String?

  @Option(help: "The history directory (default: $XDG_STATE_HOME/opencoremotion).")
  var stateDirectory: String?

  @Option(
    help: "Serve the live dashboard on this TCP port (0 picks a free one; default: not served).")
  var dashboardPort: Int?

  @Option(help: "Serve the dashboard on this address instead of 127.0.0.1.")
  var dashboardListen: String?

  func validate() throws {
    do {
      _ = try DaemonDashboardSettings.fromOptions(port: dashboardPort, listen: dashboardListen)
    } catch {
      throw ValidationError("\(error)")
    }
  }

  func run() throws {
    var configuration = DaemonConfiguration.fromEnvironment()
    if let socket { configuration.socketPath = socket }
    if let stateDirectory { configuration.stateDirectory = stateDirectory }
    LoggingSystem.bootstrap(StreamLogHandler.standardError)
    do {
      try MotionDaemon.runUntilSignalled(
        sourceText: source, configuration: configuration,
        dashboard: try DaemonDashboardSettings.fromOptions(
          port: dashboardPort, listen: dashboardListen),
        logger: Logger(label: "motiond"))
    } catch let error as MotionDaemon.StartError {
      throw CLIError(error.description)
    }
  }
}
