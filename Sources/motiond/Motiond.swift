// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import Logging
import MotionDaemon

/// `motiond`: the motion daemon. Shares the configured sensor source with every client process and
/// keeps seven days of motion history (docs/Daemon.md).
@main
struct Motiond: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "motiond",
    abstract: "Share motion sensors among processes and keep the motion history.",
    discussion: """
      The source is COREMOTION_SOURCE's (or --source): simulator[:SCENARIO], replay:PATH, iio, a phone \
      stream (sensorlogger:PORT, sensorserver:ws://PHONE:PORT, phyphox:http://PHONE:PORT) or none; \
      auto, empty or unset means real hardware if any (daemon is refused: the daemon is not its own \
      source). Clients connect to $XDG_RUNTIME_DIR/opencoremotion/motiond.sock \
      (MOTIOND_SOCKET overrides); history lives in $XDG_STATE_HOME/opencoremotion/. \
      --dashboard-port N also serves the live dashboard with the history panel; its URL (with the \
      access token it always needs) is logged and shown by `motionctl dashboard`.
      """)

  func validate() throws {
    do {
      _ = try DaemonDashboardSettings.fromOptions(port: dashboardPort, listen: dashboardListen)
    } catch {
      throw ValidationError("\(error)")
    }
  }

  @Option(help: "The sensor source (a COREMOTION_SOURCE value).")
  var source: String?

  @Option(help: "The Unix socket to listen on.")
  var socket: String?

  @Option(help: "The directory of the motion history.")
  var stateDirectory: String?

  @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
  var logLevel: String = "info"

  @Option(
    help: "Serve the live dashboard on this TCP port (0 picks a free one; default: not served).")
  var dashboardPort: Int?

  @Option(help: "Serve the dashboard on this address instead of 127.0.0.1.")
  var dashboardListen: String?

  @Option(
    help: ArgumentHelp(
      "Limit the history file to N pages (simulates a full disk).", visibility: .hidden))
  var historyMaxPages: Int?

  @Option(help: ArgumentHelp("Seconds between history commits.", visibility: .hidden))
  var flushInterval: Double = 1

  @Option(help: ArgumentHelp("Seconds between retries of a paused history.", visibility: .hidden))
  var retryInterval: Double = 5

  @Option(help: ArgumentHelp("Stream messages queued per client.", visibility: .hidden))
  var clientQueue: Int = 512

  @Option(help: "Simultaneous client connections; further ones are refused.")
  var maxClients: Int = 128

  @Option(help: ArgumentHelp("Subscriptions per client connection.", visibility: .hidden))
  var maxSubscriptions: Int = 64

  @Option(
    help: ArgumentHelp("Subscriptions of all client connections together.", visibility: .hidden))
  var maxTotalSubscriptions: Int = 1024

  @Option(
    help: ArgumentHelp(
      "Unsent reply bytes per client above which its requests are not read.", visibility: .hidden))
  var clientReplyBytes: Int = 4 << 20

  @Option(
    help: ArgumentHelp(
      "Seconds a client has to complete a frame once it began.", visibility: .hidden))
  var frameDeadline: Double = 10

  func run() throws {
    var configuration = DaemonConfiguration.fromEnvironment()
    if let socket { configuration.socketPath = socket }
    if let stateDirectory { configuration.stateDirectory = stateDirectory }
    configuration.historyMaximumPageCount = historyMaxPages
    configuration.flushInterval = max(0.05, min(flushInterval, 60))
    configuration.retryInterval = max(0.05, min(retryInterval, 3600))
    configuration.clientQueueCapacity = max(1, min(clientQueue, 1 << 20))
    configuration.maximumClients = max(1, min(maxClients, 1 << 16))
    configuration.maximumSubscriptionsPerClient = max(1, min(maxSubscriptions, 1 << 16))
    configuration.maximumSubscriptions = max(1, min(maxTotalSubscriptions, 1 << 20))
    configuration.clientReplyBytes = max(1 << 10, min(clientReplyBytes, 1 << 30))
    configuration.frameDeadline = frameDeadline.isFinite ? max(0.1, min(frameDeadline, 3600)) : 10
    let level = Logger.Level(rawValue: logLevel) ?? .info
    LoggingSystem.bootstrap { label in
      var handler = StreamLogHandler.standardError(label: label)
      handler.logLevel = level
      return handler
    }
    let logger = Logger(label: "motiond")
    do {
      try MotionDaemon.runUntilSignalled(
        sourceText: source, configuration: configuration,
        dashboard: try DaemonDashboardSettings.fromOptions(
          port: dashboardPort, listen: dashboardListen),
        logger: logger)
    } catch let error as MotionDaemon.StartError {
      logger.critical("\(error.description)")
      throw ExitCode(1)
    }
  }
}
