// SPDX-License-Identifier: Apache-2.0

/// Where the daemon serves the live dashboard (docs/Daemon.md, docs/Dashboard.md).
///
/// The daemon's dashboard always needs its access token, on loopback too: a loopback port is open
/// to every user of the machine, while the daemon's socket and history are private to its user.
/// The URL with the token goes to the log and to a file only the user can read
/// (`DaemonDashboard.urlFilePath(socketPath:)`), where `motionctl dashboard` finds it.
public struct DaemonDashboardSettings: Sendable {
  /// The address to listen on (loopback unless exposed on purpose).
  public var host: String
  /// The TCP port; 0 picks a free one (the URL file tells which).
  public var port: Int

  public init(host: String = "127.0.0.1", port: Int) {
    self.host = host
    self.port = port
  }

  /// The settings from the command-line options `--dashboard-port` and `--dashboard-listen`:
  /// `nil` without a port (no dashboard).
  ///
  /// - Throws: ``OptionError`` for a port outside 0...65535, an empty address, or an address
  ///   without a port.
  public static func fromOptions(port: Int?, listen: String?) throws -> DaemonDashboardSettings? {
    if let listen {
      if listen.isEmpty { throw OptionError(description: "--dashboard-listen needs an address") }
      if port == nil { throw OptionError(description: "--dashboard-listen needs --dashboard-port") }
    }
    guard let port else { return nil }
    guard (0...65535).contains(port) else {
      throw OptionError(description: "--dashboard-port must be in 0...65535")
    }
    return DaemonDashboardSettings(host: listen ?? "127.0.0.1", port: port)
  }

  /// A dashboard option that cannot be used, with a message for people.
  public struct OptionError: Error, CustomStringConvertible {
    public var description: String
  }
}
