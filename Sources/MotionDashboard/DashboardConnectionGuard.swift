// SPDX-License-Identifier: Apache-2.0

import Logging
import NIOCore

/// Closes a dashboard connection that holds server resources without using them: one that has
/// not got its first answer within ``DashboardConnectionLimits/requestHeadTimeout`` (it connected
/// and sent nothing, trickles its request head, or sent a head too large to parse), and one whose
/// peer has stopped reading so that writes have been blocked for
/// ``DashboardConnectionLimits/stalledWriteTimeout`` (a WebSocket tab that never reads: neither
/// a frame nor the ping that would notice it can be sent).
///
/// It sits first in the pipeline, ahead of the HTTP and WebSocket handlers, so it sees every
/// connection from accept to close whatever it turns into. Hummingbird's own idle timeout only
/// starts once a request head has been parsed, and WebSocket's ping only once a ping can be
/// written.
final class DashboardConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer
  typealias OutboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  private let limits: DashboardConnectionLimits
  private let logger: Logger
  private var firstAnswerTimer: Scheduled<Void>?
  private var stalledWriteTimer: Scheduled<Void>?
  private var hasAnswered = false
  private var hasRead = false

  init(limits: DashboardConnectionLimits, logger: Logger) {
    self.limits = limits
    self.logger = logger
  }

  func handlerAdded(context: ChannelHandlerContext) {
    if context.channel.isActive { startFirstAnswerTimer(context) }
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    cancelTimers()
  }

  func channelActive(context: ChannelHandlerContext) {
    startFirstAnswerTimer(context)
    context.fireChannelActive()
  }

  func channelInactive(context: ChannelHandlerContext) {
    cancelTimers()
    context.fireChannelInactive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    hasRead = true
    context.fireChannelRead(data)
  }

  /// The server is stopping (`ServerDrain`): a connection of which nothing has been read yet is
  /// closed at once. (Bytes a client sent in the same instant, not yet read from the socket, are
  /// not waited for: a request racing the stop may be closed unanswered.) Hummingbird's handling of it waits, uncancellably, for its first request head (the
  /// WebSocket upgrade's negotiation, before which no handler of Hummingbird's quiesces), so one
  /// idle connection held the server's stop until ``DashboardConnectionLimits/requestHeadTimeout``.
  /// One that has sent something is answered first, or closed by that timeout.
  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if event is ChannelShouldQuiesceEvent, !hasRead, !hasAnswered {
      context.close(promise: nil)
      return
    }
    context.fireUserInboundEventTriggered(event)
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    if !hasAnswered {
      hasAnswered = true
      firstAnswerTimer?.cancel()
      firstAnswerTimer = nil
    }
    context.write(data, promise: promise)
  }

  func channelWritabilityChanged(context: ChannelHandlerContext) {
    if context.channel.isWritable {
      stalledWriteTimer?.cancel()
      stalledWriteTimer = nil
    } else if stalledWriteTimer == nil {
      stalledWriteTimer = schedule(context, after: limits.stalledWriteTimeout) { guardian in
        guardian.logger.debug("closing a dashboard connection whose peer stopped reading")
      }
    }
    context.fireChannelWritabilityChanged()
  }

  private func startFirstAnswerTimer(_ context: ChannelHandlerContext) {
    guard !hasAnswered, firstAnswerTimer == nil else { return }
    firstAnswerTimer = schedule(context, after: limits.requestHeadTimeout) { guardian in
      guardian.logger.debug("closing a dashboard connection without a complete request in time")
    }
  }

  /// Closes the connection after `seconds` unless cancelled; `note` logs why.
  private func schedule(
    _ context: ChannelHandlerContext, after seconds: Double,
    note: @escaping (DashboardConnectionGuard) -> Void
  ) -> Scheduled<Void> {
    let delay = TimeAmount.nanoseconds(Int64(max(0.01, min(seconds, 86_400)) * 1e9))
    return context.eventLoop.assumeIsolated().scheduleTask(in: delay) {
      note(self)
      context.close(promise: nil)
    }
  }

  private func cancelTimers() {
    firstAnswerTimer?.cancel()
    firstAnswerTimer = nil
    stalledWriteTimer?.cancel()
    stalledWriteTimer = nil
  }
}
