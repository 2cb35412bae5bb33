// SPDX-License-Identifier: Apache-2.0

import MotionConcurrency
import NIOCore

/// Stops a Hummingbird server in an orderly way without a thread of Swift concurrency's pool.
///
/// Used by the Sensor Logger receiver (PhoneStreams), whose stop is this drain, and the dashboard
/// (MotionDashboard), which drains as its task is cancelled.
///
/// Hummingbird's own graceful shutdown (`ServiceGroup.triggerGracefulShutdown()`) runs in an
/// unstructured task, which does not inherit the worker's executor (PhoneStreams' `PhoneStreamExecutor`):
/// with every pool thread busy it never ran, so every stop waited out its grace period and then
/// cancelled the worker, and cancelling the server's accept loop can drop connections it has
/// accepted but not handed over, which traps in NIO ("Deinited NIOAsyncWriter without calling
/// finish()"). ``drain()`` does what that shutdown does, on the caller's thread: it closes the
/// listening channel, which ends the accept loop normally (the connections it already accepted
/// are still handed over), and asks each open connection to quiesce (`ChannelShouldQuiesceEvent`:
/// Hummingbird closes it once the request in progress is answered, at once when idle). The
/// server's run then returns by itself, once its connections are closed.
package final class ServerDrain: Sendable {
  private struct State {
    var listener: (any Channel)?
    var connections: [ObjectIdentifier: any Channel] = [:]
    var isDraining = false
  }

  private let state = Locked(State())

  /// A drain for one server; nothing is kept until ``listening(on:)`` and the handlers tell it.
  package init() {}

  /// Keeps the server's listening channel (from `onServerRunning`), or closes it if the drain
  /// has begun.
  package func listening(on channel: any Channel) {
    let isLate = state.withLock { state -> Bool in
      if !state.isDraining { state.listener = channel }
      return state.isDraining
    }
    if isLate { channel.close(promise: nil) }
  }

  /// Stops accepting and quiesces the open connections; returns at once. Repeating it does
  /// nothing more.
  package func drain() {
    let (listener, connections) = state.withLock { state in
      state.isDraining = true
      defer {
        state.listener = nil
        state.connections = [:]
      }
      return (state.listener, Array(state.connections.values))
    }
    listener?.close(promise: nil)
    for connection in connections {
      connection.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
    }
  }

  private func opened(_ channel: any Channel) {
    let isLate = state.withLock { state -> Bool in
      if !state.isDraining { state.connections[ObjectIdentifier(channel)] = channel }
      return state.isDraining
    }
    // Accepted as the listener closed: it has sent nothing that needs an answer yet.
    if isLate { channel.close(promise: nil) }
  }

  private func closed(_ channel: any Channel) {
    state.withLock { $0.connections[ObjectIdentifier(channel)] = nil }
  }

  /// One per connection: registers it with its drain while it is open. `Part` is whatever
  /// flows through the pipeline at its position; it passes untouched.
  ///
  /// Used on its channel's event loop only (NIO's handler contract).
  package final class Handler<Part>: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = Part
    package typealias InboundOut = Part

    private let drain: ServerDrain

    package init(_ drain: ServerDrain) {
      self.drain = drain
    }

    package func handlerAdded(context: ChannelHandlerContext) {
      drain.opened(context.channel)
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
      drain.closed(context.channel)
    }

    package func channelInactive(context: ChannelHandlerContext) {
      drain.closed(context.channel)
      context.fireChannelInactive()
    }
  }
}
