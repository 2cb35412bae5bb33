// SPDX-License-Identifier: Apache-2.0

import Hummingbird
import HummingbirdCore
import NIOCore
import NIOHTTP1

/// The Sensor Logger receiver's limits on a request head (request line and header fields) and
/// its answer to a head beyond them.
///
/// NIO's HTTP decoder enforces the limits (``httpDecoder``): it stops at the first byte beyond
/// them, so an oversized head costs at most the limit in memory however much the peer sends, and
/// raises `HTTPParserError.headerOverflow`. Hummingbird answers every parse error with an empty
/// 400 and `Connection: close`; ``Handler`` makes that answer a 431 Request Header Fields Too
/// Large with a short reason when the error was the head's size, and closes the connection
/// ``lingerTime`` after any parse error or other error of the connection (the peer may still be
/// sending the rest of its head, which is read and discarded meanwhile, so the answer reaches it
/// before the close; before, such a connection stayed open until the idle timeout).
enum SensorLoggerRequestHeadLimit {
  /// The most bytes of request line and header fields together (and of any one of them): 16 KiB,
  /// where a push's head takes a few hundred bytes.
  static let maximumBytes = 16 << 10
  /// The most header fields, where a push has about ten.
  static let maximumFieldCount = 100
  /// How long a connection stays open after a malformed or oversized head: long enough for the
  /// answer to be read before the close, short enough that such peers cannot hold the receiver's
  /// connections.
  static let lingerTime = TimeAmount.seconds(1)

  /// The decoder limits handed to Hummingbird's HTTP/1 channel.
  static var httpDecoder: HTTP1Channel.Configuration.DecoderConfiguration {
    .init(
      maxHeaderFieldSize: maximumBytes, maxHeaderListSize: maximumBytes,
      maxHeaderFieldCount: maximumFieldCount)
  }

  /// The reason sent with the 431.
  static let reason =
    "the request line and headers exceed \(maximumBytes / 1024) KiB or \(maximumFieldCount) "
    + "fields\n"

  /// Whether `error` is NIO's "request head too large" (`HTTPParserError.headerOverflow`).
  static func isHeadOverflow(_ error: any Error) -> Bool {
    (error as? HTTPParserError) == .headerOverflow
  }

  /// Sits between Hummingbird's HTTP codec and its connection handler: rewrites the answer to an
  /// oversized head and closes connections that sent something the parser refused.
  ///
  /// Used on its channel's event loop only (NIO's handler contract).
  final class Handler: ChannelDuplexHandler, RemovableChannelHandler {
    // Hummingbird's HTTP parts (NIOHTTPTypes is not a dependency of this module, so they are
    // named through the handler that follows this one in the pipeline).
    typealias InboundIn = HTTPConnectionStateHandler.InboundIn
    typealias InboundOut = HTTPConnectionStateHandler.InboundOut
    typealias OutboundIn = HTTPConnectionStateHandler.OutboundIn
    typealias OutboundOut = HTTPConnectionStateHandler.OutboundOut

    /// Called (on the event loop) once per connection whose head was too large.
    private let onOverflow: @Sendable () -> Void
    private var headOverflowed = false
    private var closeScheduled = false

    init(onOverflow: @escaping @Sendable () -> Void) {
      self.onOverflow = onOverflow
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
      if !headOverflowed, SensorLoggerRequestHeadLimit.isHeadOverflow(error) {
        headOverflowed = true
        onOverflow()
      }
      // Every error here ends the connection (a parse error, or the socket failed): the
      // linger bounds how long a peer that goes on sending after it keeps its place.
      if !closeScheduled {
        closeScheduled = true
        let channel = context.channel
        context.eventLoop.scheduleTask(in: SensorLoggerRequestHeadLimit.lingerTime) {
          channel.close(promise: nil)
        }
      }
      context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
      // Hummingbird's parse-error answer is the only 400 without a body: our own carry a reason.
      guard headOverflowed, case .head(var head) = unwrapOutboundIn(data),
        head.status == .badRequest, head.headerFields[.contentLength] == "0"
      else {
        context.write(data, promise: promise)
        return
      }
      headOverflowed = false
      let body = ByteBuffer(string: SensorLoggerRequestHeadLimit.reason)
      head.status = .init(code: 431, reasonPhrase: "Request Header Fields Too Large")
      head.headerFields[.contentType] = "text/plain; charset=utf-8"
      head.headerFields[.contentLength] = "\(body.readableBytes)"
      context.write(wrapOutboundOut(.head(head)), promise: nil)
      context.write(wrapOutboundOut(.body(body)), promise: promise)
    }
  }
}
