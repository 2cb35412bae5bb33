// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDaemonProtocol
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A client may shut down its sending side once its requests are sent (`shutdown(SHUT_WR)`, as
/// `socat` or a script does) and then read the answers: the end of its requests is not the end of
/// the session.
extension DaemonProcessTests {
  @Test func aClientThatHalfClosesAfterItsRequestsGetsEveryReply() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    let connection = try RawConnection(path: daemon.socketPath)
    // Far more reply bytes than the socket buffers hold: most replies still wait in the daemon's
    // queue when it reads the end of the requests.
    let count = 5_000
    var requests: [UInt8] = []
    for id in 1...count {
      requests += Self.frame(UInt64(id)) { $0.status = Opencoremotion_Daemon_V1_StatusRequest() }
    }
    try connection.write(requests)
    #expect(shutdown(connection.descriptor, Int32(SHUT_WR)) == 0)
    // Read nothing until the daemon has handled every request and the end of stream (bounded: a
    // daemon that does not log it has closed the session by then).
    try? waitUntil(seconds: 10, "the daemon to read the end of the requests") {
      daemon.log.contains("finished sending")
    }
    var replies = 0
    while let message = try connection.receive(seconds: 20) {
      guard case .status = message.body else {
        Issue.record("unexpected reply \(message)")
        break
      }
      replies += 1
    }
    #expect(replies == count)
    #expect(try daemon.terminate() == 0)
  }
}
