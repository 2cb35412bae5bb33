// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDaemonProtocol

/// How a ``MotionDaemon`` runs: where it listens, where history goes, and its limits.
public struct DaemonConfiguration: Sendable {
  /// The Unix socket path (default `$XDG_RUNTIME_DIR/opencoremotion/motiond.sock`).
  public var socketPath: String
  /// The history directory (default `$XDG_STATE_HOME/opencoremotion`).
  public var stateDirectory: String
  /// Stream messages queued per client before the oldest are dropped.
  public var clientQueueCapacity = 512
  /// How often pending history is committed, s (a `kill -9` loses at most this much).
  public var flushInterval = 1.0
  /// How often old history is pruned, s.
  public var pruneInterval = 3600.0
  /// How soon a paused (disk-full) history retries, s.
  public var retryInterval = 5.0
  /// Limits the history file to this many pages (simulates a full disk in tests); `nil` = no limit.
  public var historyMaximumPageCount: Int?
  /// Simultaneous client connections; further ones are refused (with an error message and a log
  /// line) until one leaves. Each connection costs two threads and up to a 16 MiB frame buffer.
  public var maximumClients = 128
  /// Subscriptions per connection (more are refused with `ERROR_NOT_AVAILABLE`).
  public var maximumSubscriptionsPerClient = 64
  /// Subscriptions of all connections together (more are refused with `ERROR_NOT_AVAILABLE`):
  /// every one costs work on the source's delivery thread, and 128 connections of 64 each would
  /// be 8,192. Connections subscribing at the same instant may pass it by one each.
  public var maximumSubscriptions = 1024
  /// Unsent reply bytes per client above which its requests are no longer read (flow control).
  public var clientReplyBytes = 4 << 20
  /// Seconds a client has to complete a frame once its first byte arrived.
  public var frameDeadline = 10.0

  public init(socketPath: String, stateDirectory: String) {
    self.socketPath = socketPath
    self.stateDirectory = stateDirectory
  }

  /// The defaults from the environment (XDG directories, `MOTIOND_SOCKET`).
  public static func fromEnvironment(
    _ environment: [String: String] = ProcessInfo.processInfo.environment
  )
    -> DaemonConfiguration
  {
    DaemonConfiguration(
      socketPath: DaemonPaths.socketPath(environment: environment),
      stateDirectory: DaemonPaths.stateDirectory(environment: environment))
  }
}
