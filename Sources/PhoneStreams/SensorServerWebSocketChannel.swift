// SPDX-License-Identifier: Apache-2.0

import Logging
import MotionSensors
import NIOCore
import NIOHTTP1
import NIOWebSocket
import WSClient
@_spi(WSInternal) import WSCore

/// How the SensorServer client's WebSocket channel is set up: the WebSocket library's own client
/// setup, with what the client needs and `WebSocketClient` does not offer.
///
/// - The channel is kept (``SensorServerConnectionState``), so that a stop can close the socket
///   at once, whatever the connection is doing, instead of waiting for the library to end it.
/// - A protocol error found by SwiftNIO's frame decoder (a frame over the size limit, a
///   malformed control frame) is recorded before SwiftNIO's own error handler answers it. That
///   handler sends the phone the close frame (1009, 1002) and closes the channel, which ended the
///   inbound stream before the error got there: `WebSocketClient` then read as if the phone had
///   closed without a close frame ("connection closed").
///
/// The WebSocket protocol itself (pings, the close handshake) is the library's
/// `WebSocketHandler`, the one `WebSocketClient` uses (declared under the library's
/// `WSInternal` SPI, which its Hummingbird server shares).
struct SensorServerWebSocketChannel: ClientConnectionChannel {
  /// The context the library passes to the data handler.
  struct Context: WebSocketContext {
    let logger: Logger
  }

  enum UpgradeResult: Sendable {
    case webSocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
    case notUpgraded
  }

  typealias Value = EventLoopFuture<UpgradeResult>

  /// The phone's address, as `Configuration.host` has it (no brackets).
  let host: String
  let port: UInt16
  /// The request target, path and query.
  let target: String
  let maximumFrameSize: Int
  let autoPing: AutoPingSetup
  let closeTimeout: Duration
  let state: SensorServerConnectionState
  let handler: WebSocketDataHandler<Context>

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    let state = self.state
    guard state.attach(channel) else {
      return channel.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
    }
    return channel.eventLoop.makeCompletedFuture {
      let upgrader = NIOTypedWebSocketClientUpgrader<UpgradeResult>(
        maxFrameSize: maximumFrameSize, enableAutomaticErrorHandling: false
      ) { channel, _ in
        channel.eventLoop.makeCompletedFuture {
          let pipeline = channel.pipeline.syncOperations
          // Ahead of SwiftNIO's error handler, which closes the channel before passing it on.
          try pipeline.addHandler(ProtocolErrorRecorder(state: state))
          try pipeline.addHandler(WebSocketProtocolErrorHandler(isServer: false))
          state.upgraded(channel)
          return .webSocket(try NIOAsyncChannel(wrappingChannelSynchronously: channel))
        }
      }
      let address = host.contains(":") ? "[\(host)]" : host
      var headers = HTTPHeaders()
      headers.add(name: "Host", value: "\(address):\(port)")
      headers.add(name: "Origin", value: "ws://\(address)")
      let upgrade = NIOTypedHTTPClientUpgradeConfiguration<UpgradeResult>(
        upgradeRequestHead: HTTPRequestHead(
          version: .http1_1, method: .GET, uri: target, headers: headers),
        upgraders: [upgrader],
        notUpgradingCompletionHandler: { channel in
          channel.eventLoop.makeSucceededFuture(.notUpgraded)
        })
      var configuration = NIOUpgradableHTTPClientPipelineConfiguration(
        upgradeConfiguration: upgrade)
      configuration.leftOverBytesStrategy = .forwardBytes
      let endHolder = UpgradeEndHolder()
      try channel.pipeline.syncOperations.addHandler(endHolder, position: .first)
      let upgraded = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
        configuration: configuration)
      // After the upgrade handler has passed on what it buffered (it does so right after the
      // result), so that the end comes after the phone's last bytes.
      upgraded.assumeIsolated().whenComplete { _ in
        channel.eventLoop.assumeIsolated().execute { endHolder.release() }
      }
      return upgraded
    }
  }

  func handle(value: Value, logger: Logger) async throws -> WebSocketCloseFrame? {
    switch try await value.get() {
    case .webSocket(let channel):
      return try await WebSocketHandler.handle(
        type: .client,
        configuration: .init(
          extensions: [], autoPing: autoPing, closeTimeout: closeTimeout, validateUTF8: false,
          maxFrameSize: maximumFrameSize),
        asyncChannel: channel, context: Context(logger: logger), handler: handler)
    case .notUpgraded:
      throw WebSocketClientError.webSocketUpgradeFailed
    }
  }
}

/// One connection's channels, for the client to close, and what the client learns about them
/// beyond what the library returns.
final class SensorServerConnectionState: Sendable {
  private struct State {
    /// Every channel set up for the connection: SwiftNIO can try several addresses at once.
    var channels: [any Channel] = []
    /// The channel that was upgraded to a WebSocket.
    var webSocket: (any Channel)?
    var isClosed = false
    var protocolError: NIOWebSocketError?
  }

  private let state = Locked(State())

  /// The protocol error SwiftNIO's frame decoder found in what the phone sent, if any; the
  /// channel was closed for it.
  var protocolError: NIOWebSocketError? { state.withLock { $0.protocolError } }

  /// Closes the connection's sockets now, whatever its state: an open WebSocket is sent a close
  /// frame (1001, `reason`) first, which is not waited for, nor is the phone's answer; a
  /// handshake in progress is cut; a channel set up afterwards is refused.
  ///
  /// The channels are closed on their event loop, which is alive (the client shuts it down only
  /// once the library has returned), so the library ends its work there as after any close.
  func close(goingAwayBecause reason: String) {
    let (channels, webSocket) = state.withLock { state in
      state.isClosed = true
      defer { state.channels = [] }
      return (state.channels, state.webSocket)
    }
    if let webSocket {
      var data = webSocket.allocator.buffer(capacity: 2 + reason.utf8.count)
      data.write(webSocketErrorCode: .goingAway)
      data.writeString(reason)
      let frame = WebSocketFrame(
        fin: true, opcode: .connectionClose, maskKey: .random(), data: data)
      webSocket.writeAndFlush(frame, promise: nil)
    }
    for channel in channels { channel.close(promise: nil) }
  }

  /// Keeps `channel` for ``close(goingAwayBecause:)``; `false` when the connection was closed.
  fileprivate func attach(_ channel: any Channel) -> Bool {
    state.withLock { state in
      if !state.isClosed { state.channels.append(channel) }
      return !state.isClosed
    }
  }

  /// Notes that `channel` is a WebSocket now (a close frame can be written to it).
  fileprivate func upgraded(_ channel: any Channel) {
    state.withLock { $0.webSocket = channel }
  }

  fileprivate func record(_ error: NIOWebSocketError) {
    state.withLock { $0.protocolError = $0.protocolError ?? error }
  }
}

/// Holds back the end of the phone's stream (its FIN) until the upgrade has ended.
///
/// SwiftNIO's HTTP decoder drops the bytes read after the upgrade answer (the phone's first
/// messages, or its close frame) when the end of the stream is read before the decoder is
/// removed, and the end itself then passes the upgrade handler before the WebSocket's handlers
/// exist, so nothing after them learns of it: a phone that answered, sent a close frame
/// (SensorServer's 4001) and closed, all in one read, left the client waiting for its first
/// ping to fail.
private final class UpgradeEndHolder: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer

  private var context: ChannelHandlerContext?
  private var isUpgrading = true
  private var heldEnd = false

  func handlerAdded(context: ChannelHandlerContext) {
    self.context = context
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    self.context = nil
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if isUpgrading, event as? ChannelEvent == .inputClosed {
      heldEnd = true
      return
    }
    context.fireUserInboundEventTriggered(event)
  }

  /// Passes a held end on; later ones go through.
  func release() {
    isUpgrading = false
    guard heldEnd, let context else { return }
    heldEnd = false
    context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
  }
}

/// Records a protocol error of SwiftNIO's frame decoder and passes it on.
private final class ProtocolErrorRecorder: ChannelInboundHandler {
  typealias InboundIn = WebSocketFrame
  typealias InboundOut = WebSocketFrame

  private let state: SensorServerConnectionState

  init(state: SensorServerConnectionState) {
    self.state = state
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    if let error = error as? NIOWebSocketError { state.record(error) }
    context.fireErrorCaught(error)
  }
}
