// SPDX-License-Identifier: Apache-2.0

import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// Hummingbird's WebSocket request context plus the connection's channel, so the WebSocket route
/// can bound the socket's send buffer (``DashboardServer/socketSendBufferBytes``) and a refused
/// request's connection can be closed (``closeAfterAnswer()``).
struct DashboardRequestContext: RequestContext, WebSocketRequestContext {
  var coreContext: CoreRequestContextStorage
  let webSocket: WebSocketHandlerReference<Self>
  let channel: any Channel

  init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    webSocket = .init()
    channel = source.channel
  }

  /// How long a refused request's connection stays open for its answer to be read.
  static let refusalLinger = TimeAmount.milliseconds(200)

  /// Closes the connection shortly after the answer has been written: a peer that is refused
  /// (no token, another site) must not keep its connection, and with it one of the server's
  /// slots, by sending keep-alive requests. Hummingbird ends a connection only when the request
  /// asks for it, so the answer's `Connection: close` alone would not.
  func closeAfterAnswer() {
    let channel = self.channel
    channel.eventLoop.scheduleTask(in: Self.refusalLinger) {
      channel.close(promise: nil)
    }
  }

  /// A plain-text refusal that closes its connection (see ``closeAfterAnswer()``).
  func refusal(_ status: HTTPResponse.Status, _ text: String) -> Response {
    closeAfterAnswer()
    return Response(
      status: status,
      headers: [.contentType: "text/plain; charset=utf-8", .connection: "close"],
      body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
  }
}
