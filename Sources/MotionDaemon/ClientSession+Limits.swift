// SPDX-License-Identifier: Apache-2.0

extension ClientSession {
  /// What one connection may hold of the daemon's memory and delivery work (docs/Daemon.md,
  /// "Limits"): a client is untrusted, and one client must never starve the others.
  struct Limits: Sendable {
    /// Unsent reply bytes above which the daemon stops reading the client's requests and pauses
    /// long answers until the client reads (4 MiB: several chunks of a recorded-accelerometer
    /// answer, far more than any other reply).
    var replyBytes = 4 << 20
    /// Subscriptions per connection: each costs work on the source's delivery thread.
    var subscriptions = 64
    /// Seconds to complete a frame once a byte of it has arrived.
    var frameDeadline = 10.0

    /// Unsent reply bytes at which the client is disconnected: only source events, which nobody
    /// requested, can push the queue past ``replyBytes`` (authorization changes hold one slot of
    /// their own), and a client that never reads them must not keep them for ever.
    var hardReplyBytes: Int { replyBytes * 4 }
  }
}
