// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionDaemonProtocol
import Testing

@testable import MotionDaemon

/// A notice of the source's sensors that comes before the client's Hello is answered. The
/// client's handshake reads the Hello answer and nothing else (an older one takes any other
/// message for a failed handshake), so the notice must follow the answer, not precede it. A
/// session alone, without a daemon: its request handler answers the Hello.
@Suite struct ClientSessionSourceSensorsNoticeTests {
  /// A started session on a new connection (the caller closes it), whose request handler answers
  /// every request with a reply of the request's id that `answer` fills in.
  private static func startedSession(
    _ prefix: String, answer: @escaping @Sendable (inout WireServerMessage) -> Void
  ) throws -> (client: RawConnection, session: ClientSession) {
    let (client, socket) = try RawConnection.accepted(prefix: prefix)
    let session = ClientSession(
      id: 1, socket: socket, streamCapacity: 8, limits: ClientSession.Limits(),
      logger: Logger(label: "test"),
      onRequest: { _, request in
        var reply = WireServerMessage()
        reply.requestID = request.requestID
        answer(&reply)
        return [reply]
      },
      authorizationNotice: { nil }, onClose: { _ in })
    session.start()
    return (client, session)
  }

  @Test func aNoticeBeforeTheHelloIsAnsweredFollowsTheAnswer() throws {
    let (client, session) = try Self.startedSession("session-sensors") {
      $0.hello = Opencoremotion_Daemon_V1_HelloReply()
    }
    defer { session.close() }

    // The source changes while the client is still connecting: two notices, the later one
    // standing.
    for bits: UInt32 in [7, 5] {
      var notice = WireServerMessage()
      notice.requestID = 0
      var sensors = Opencoremotion_Daemon_V1_SourceSensors()
      sensors.availableSensors = bits
      notice.sourceSensors = sensors
      session.deliver(sourceSensors: notice)
    }
    try client.write(
      DaemonProcessTests.frame(3) { $0.hello = Opencoremotion_Daemon_V1_Hello() })
    var read: [WireServerMessage] = []
    while let message = try client.receive(seconds: 3) { read.append(message) }
    let kinds = read.map { message -> String in
      switch message.body {
      case .hello: return "hello"
      case .sourceSensors(let notice): return "sensors \(notice.availableSensors)"
      default: return "other"
      }
    }
    #expect(kinds == ["hello", "sensors 5"])
    #expect(read.first?.requestID == 3)
  }

  /// A client that does not say Hello (the daemon serves it all the same: a script that only
  /// subscribes) gets the notices too, once it has had a reply. They waited for a Hello answer
  /// that never came, so such a client never learnt that the source had lost a sensor.
  @Test func aClientThatSaysNoHelloGetsTheNoticesAfterItsFirstReply() throws {
    let (client, session) = try Self.startedSession("session-sensors-nohello") {
      $0.status = Opencoremotion_Daemon_V1_DaemonStatus()
    }
    defer { session.close() }

    try client.write(
      DaemonProcessTests.frame(3) { $0.status = Opencoremotion_Daemon_V1_StatusRequest() })
    let answer = try client.receive(seconds: 10)
    #expect(answer?.requestID == 3)
    var notice = WireServerMessage()
    notice.requestID = 0
    var sensors = Opencoremotion_Daemon_V1_SourceSensors()
    sensors.availableSensors = 5
    notice.sourceSensors = sensors
    session.deliver(sourceSensors: notice)
    let next = try client.receive(seconds: 3)
    guard case .sourceSensors(let received)? = next?.body else {
      Issue.record("no notice: \(String(describing: next))")
      return
    }
    #expect(received.availableSensors == 5)
  }
}
