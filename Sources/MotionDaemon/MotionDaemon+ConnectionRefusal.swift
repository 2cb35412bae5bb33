// SPDX-License-Identifier: Apache-2.0

extension MotionDaemon {
  /// Why the accept loop did not admit a connection.
  enum ConnectionRefusal: Error {
    /// The daemon is shutting down.
    case stopping
    /// ``DaemonConfiguration/maximumClients`` are connected; `firstSinceWarning` asks for the one
    /// log line of this episode.
    case full(firstSinceWarning: Bool)
  }
}
