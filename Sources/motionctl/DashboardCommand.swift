// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import MotionDaemon
import MotionDaemonClient
import MotionDashboard
import MotionSensors
import OpenCoreMotion
import SourceComposition

/// `motionctl dashboard`: serves the live dashboard for a source in this process.
struct DashboardCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "dashboard",
    abstract: "Serve a live motion dashboard in the browser (3D attitude, streams, steps, events).",
    discussion: """
      Listens on http://127.0.0.1:PORT/ (loopback only); every request needs the random token in \
      the URL printed at start-up (a loopback port is open to every user of the machine). \
      --listen ADDR exposes it on another address. The source is \
      --source, else COREMOTION_SOURCE, else the simulator's tour. docs/Dashboard.md describes \
      the WebSocket frames for other tools. When motiond runs with --dashboard-port and no source \
      is chosen, this prints the daemon's dashboard URL (its page also shows the history) instead.
      """)

  @Option(
    help:
      "The source, as in COREMOTION_SOURCE (default: COREMOTION_SOURCE, else IIO hardware, else simulator:tour)."
  )
  var source: String?

  @Option(help: "The TCP port (0 picks a free one).")
  var port: Int = 8787

  @Option(help: "Listen on this address instead of 127.0.0.1.")
  var listen: String?

  @Option(help: "The reference frame device motion starts in.")
  var frame: ReferenceFrameOption = .arbitrary

  @Option(help: "The display rate the page starts with, Hz.")
  var rate: Double = 50

  @Option(
    help:
      "Where recordings started from the page go (default: ~/.local/share/opencoremotion/recordings)."
  )
  var recordingDirectory: String?

  func validate() throws {
    guard (0...65535).contains(port) else { throw ValidationError("--port must be in 0...65535") }
    guard rate.isFinite, rate >= 1, rate <= 1000 else {
      throw ValidationError("--rate must be in [1, 1000] Hz")
    }
    if let listen, listen.isEmpty { throw ValidationError("--listen needs an address") }
  }

  func run() throws {
    let daemonDashboard = runningDaemonDashboard()
    if let daemonDashboard, source == nil,
      ProcessInfo.processInfo.environment["COREMOTION_SOURCE"] == nil
    {
      // What a user running the daemon wants: its page, which also shows the history and clients.
      print(
        "motiond serves the dashboard (with the history panel) at \(daemonDashboard.absoluteString)"
      )
      print("Pass --source to serve another one from this process.")
      return
    }
    if let daemonDashboard {
      print(
        "(motiond also serves a dashboard, with the history panel, at \(daemonDashboard.absoluteString))"
      )
    }
    let specification = try dashboardSourceSpecification(source)
    let host = listen ?? "127.0.0.1"
    var configuration = DashboardConfiguration(
      // A token on loopback too: a loopback port is open to every user of the machine, and the
      // page shows the live sensors and starts recordings (as the daemon's own page does).
      host: host, port: port, token: DashboardConfiguration.makeToken(),
      source: specification, referenceFrame: frame.frame, updateRate: rate)
    if let recordingDirectory {
      configuration.recordingDirectory = URL(
        fileURLWithPath: (recordingDirectory as NSString).expandingTildeInPath, isDirectory: true)
    }
    let server = DashboardServer(configuration: configuration)
    let outcome = Locked<Error?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
      do {
        try await server.run(onRunning: { url in
          print("Dashboard for \(specification) at \(url.absoluteString)")
          print("Open it with the token above; other requests are refused.")
          // The same endpoint speaks Foxglove's protocol (docs/Dashboard.md).
          var webSocket = URLComponents(url: url, resolvingAgainstBaseURL: false)
          webSocket?.scheme = "ws"
          webSocket?.path = "/ws"
          if let address = webSocket?.url?.absoluteString {
            print("Foxglove can connect to \(address) (foxglove.websocket.v1 or foxglove.sdk.v1)")
          }
          fflush(nil)  // every output stream (Swift 6: the global `stdout` is shared mutable state)
        })
      } catch {
        outcome.withLock { $0 = error }
      }
      done.signal()
    }
    done.wait()
    guard let error = outcome.withLock({ $0 }) else { return }
    if error is SourceSpecificationError || error is DashboardError { throw CLIError("\(error)") }
    throw CLIError("cannot serve the dashboard on \(host):\(port): \(error)")
  }
}

/// The URL of the dashboard of the daemon on the default socket, when one answers there and serves
/// a dashboard.
func runningDaemonDashboard() -> URL? {
  let socketPath = DaemonClient.defaultSocketPath()
  guard let url = MotionDaemon.dashboardURL(socketPath: socketPath) else { return nil }
  let client = DaemonClient(socketPath: socketPath, clientName: "motionctl dashboard")
  defer { client.close() }
  return (try? client.connect(timeout: 1)) != nil ? url : nil
}

/// `--source`, else `COREMOTION_SOURCE`, else the simulator's tour when no hardware is found.
func dashboardSourceSpecification(_ text: String?) throws -> SourceSpecification {
  if let text { return try SourceSpecification(parsing: text) }
  let fromEnvironment = try SourceSpecification.fromEnvironment()
  if case .automatic = fromEnvironment {
    let automatic = try SourceFactory.makeSource(.automatic)
    return automatic.availableSensors.isEmpty ? .simulator(scenario: nil) : .automatic
  }
  return fromEnvironment
}
