// SPDX-License-Identifier: Apache-2.0

import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// Hummingbird's WebSocket request context plus the connection's channel, so the WebSocket route
/// can bound the socket's send buffer (``DashboardServer/socketSendBufferBytes``).
struct DashboardRequestContext: RequestContext, WebSocketRequestContext {
  var coreContext: CoreRequestContextStorage
  let webSocket: WebSocketHandlerReference<Self>
  let channel: any Channel

  init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    webSocket = .init()
    channel = source.channel
  }
}
