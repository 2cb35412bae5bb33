// SPDX-License-Identifier: Apache-2.0

import Foundation
import OpenCoreMotion
import SourceComposition

/// How a ``DashboardServer`` runs.
public struct DashboardConfiguration: Sendable {
  /// The address to listen on; loopback (`127.0.0.1`) unless exposed on purpose.
  public var host: String
  /// The TCP port; 0 picks a free one (the running URL tells which).
  public var port: Int
  /// The token every request must carry (`?token=` or the cookie the page sets), or `nil` for
  /// none. ``DashboardServer`` requires one whenever ``host`` is not a loopback address.
  public var token: String?
  /// The source to show.
  public var source: SourceSpecification
  /// The reference frame device motion starts in.
  public var referenceFrame: CMAttitudeReferenceFrame
  /// The display rate the page starts with, Hz.
  public var updateRate: Double
  /// Where recordings started from the page go.
  public var recordingDirectory: URL
  /// The daemon's history, or `nil` (the page hides the history panel). Package-only, as its
  /// types: only motiond (MotionDaemon) provides one, from its store.
  package var history: (any DashboardHistoryProvider)?
  /// Whether the source is unsubscribed while no page is open (and subscribed again, from where
  /// it is then, when one opens). The daemon sets it so a closed tab costs it nothing; off by
  /// default, so a simulation or a recording keeps playing from where the first page started it.
  public var stopsSourceWhenIdle = false
  /// Timeouts and the connection cap that keep idle, half-sent or unread connections from
  /// starving the server (see ``DashboardConnectionLimits`` for the defaults).
  public var connectionLimits = DashboardConnectionLimits()

  public init(
    host: String = "127.0.0.1", port: Int = 8787, token: String? = nil, source: SourceSpecification,
    referenceFrame: CMAttitudeReferenceFrame = .xArbitraryZVertical, updateRate: Double = 50,
    recordingDirectory: URL = DashboardConfiguration.defaultRecordingDirectory
  ) {
    self.host = host
    self.port = port
    self.token = token
    self.source = source
    self.referenceFrame = referenceFrame
    self.updateRate = updateRate
    self.recordingDirectory = recordingDirectory
  }

  /// `$XDG_DATA_HOME/opencoremotion/recordings`, else `~/.local/share/opencoremotion/recordings`.
  public static var defaultRecordingDirectory: URL {
    let environment = ProcessInfo.processInfo.environment
    let base =
      environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
      ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
    return base.appendingPathComponent("opencoremotion/recordings")
  }

  /// Whether `host` is a loopback address (the only kind served without a token).
  public static func isLoopback(_ host: String) -> Bool {
    host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
  }

  /// A new random token: 128 bits from the system's generator, as 32 hexadecimal digits.
  public static func makeToken() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<4).map { _ in
      let value = generator.next() as UInt32
      let hex = String(value, radix: 16)
      return String(repeating: "0", count: 8 - hex.count) + hex
    }.joined()
  }
}
