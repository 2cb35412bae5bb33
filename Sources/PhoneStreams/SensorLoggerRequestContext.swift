// SPDX-License-Identifier: Apache-2.0

import Hummingbird
import NIOCore

/// Hummingbird's request context plus the connection, so the receiver can close a connection
/// whose request body it refused to read (too large, too slow): Hummingbird would otherwise keep
/// reading and discarding that body for as long as the peer sends it.
struct SensorLoggerRequestContext: RequestContext {
  var coreContext: CoreRequestContextStorage
  /// The connection the request came on.
  let channel: any Channel

  init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    channel = source.channel
  }

  /// Closes the connection shortly after the answer has been written.
  func closeAfterAnswer() {
    let channel = self.channel
    channel.eventLoop.scheduleTask(in: .milliseconds(200)) {
      channel.close(promise: nil)
    }
  }
}
