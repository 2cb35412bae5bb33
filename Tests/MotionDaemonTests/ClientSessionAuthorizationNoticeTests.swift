// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionConcurrency
import MotionDaemonProtocol
import Testing

@testable import MotionDaemon

#if canImport(Glibc)
  import Glibc
#endif

/// The order in which a client reads the authorization, which its cache takes from the last
/// message that carries it. A session alone, without a daemon: its request handler stands for
/// the daemon and changes the authorization at the moments a test needs.
@Suite struct ClientSessionAuthorizationNoticeTests {
  private static func authorizationMessage(_ allowed: Bool) -> WireServerMessage {
    var message = WireServerMessage()
    var authorization = Opencoremotion_Daemon_V1_Authorization()
    authorization.historyAuthorized = allowed
    message.authorization = authorization
    return message
  }

  /// An authorization answer computed, then another client denies history before the answer is
  /// queued, and the session's writer sends the notice of the denial at once (nothing is queued
  /// ahead of it). The answer, written after, says "allowed": before, that stale answer was the
  /// last word and the client's cache kept it; now a fresh notice follows it.
  @Test func anAnswerComputedBeforeAChangeIsFollowedByAFreshNotice() throws {
    let path = "/tmp/session-notice-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
    let listener = try UnixSocket.listen(path: path)
    defer { listener.close() }
    let client = try RawConnection(path: path)
    unlink(path)
    let socket = try #require(try listener.accept())
    let allowed = Locked(true)
    let session = ClientSession(
      id: 1, socket: socket, streamCapacity: 8, limits: ClientSession.Limits(),
      logger: Logger(label: "test"),
      onRequest: { session, request in
        var reply = Self.authorizationMessage(allowed.withLock { $0 })
        reply.requestID = request.requestID
        // Another client's denial lands between computing the answer and queueing it.
        allowed.withLock { $0 = false }
        session.notifyAuthorizationChange()
        // Time for the writer to send that notice before the answer is queued.
        Thread.sleep(forTimeInterval: 0.2)
        return [reply]
      },
      authorizationNotice: { Self.authorizationMessage(allowed.withLock { $0 }) },
      onClose: { _ in })
    session.start()
    defer { session.close() }
    try client.write(
      DaemonProcessTests.frame(5) {
        $0.authorizationQuery = Opencoremotion_Daemon_V1_AuthorizationQuery()
      })
    var read: [(requestID: UInt64, allowed: Bool)] = []
    while let message = try client.receive(seconds: 1) {
      guard case .authorization(let authorization) = message.body else { continue }
      read.append((message.requestID, authorization.historyAuthorized))
    }
    // The notice of the denial, the stale answer, then the fresh notice.
    #expect(read.map(\.requestID) == [0, 5, 0])
    #expect(read.map(\.allowed) == [false, true, false])
    #expect(read.last?.allowed == false)
  }

  /// A change while earlier replies are still queued: the notice waits for them (an older
  /// answer must not overtake it) but not for replies queued after the change.
  @Test func aNoticeGoesOutAfterTheRepliesQueuedBeforeTheChange() throws {
    let path = "/tmp/session-notice-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
    let listener = try UnixSocket.listen(path: path)
    defer { listener.close() }
    let client = try RawConnection(path: path)
    unlink(path)
    let socket = try #require(try listener.accept())
    let allowed = Locked(true)
    let session = ClientSession(
      id: 1, socket: socket, streamCapacity: 8, limits: ClientSession.Limits(),
      logger: Logger(label: "test"),
      onRequest: { session, request in
        var reply = Self.authorizationMessage(allowed.withLock { $0 })
        reply.requestID = request.requestID
        if request.requestID == 2 {
          // The first answer is queued: this change comes after it.
          allowed.withLock { $0 = false }
          session.notifyAuthorizationChange()
          var second = Self.authorizationMessage(false)
          second.requestID = request.requestID
          return [second]
        }
        return [reply]
      },
      authorizationNotice: { Self.authorizationMessage(allowed.withLock { $0 }) },
      onClose: { _ in })
    session.start()
    defer { session.close() }
    try client.write(
      DaemonProcessTests.frame(1) {
        $0.authorizationQuery = Opencoremotion_Daemon_V1_AuthorizationQuery()
      }
        + DaemonProcessTests.frame(2) {
          $0.authorizationQuery = Opencoremotion_Daemon_V1_AuthorizationQuery()
        })
    var read: [(requestID: UInt64, allowed: Bool)] = []
    while let message = try client.receive(seconds: 1) {
      guard case .authorization(let authorization) = message.body else { continue }
      read.append((message.requestID, authorization.historyAuthorized))
    }
    #expect(read.first?.requestID == 1)
    #expect(read.first?.allowed == true)
    #expect(read.count == 3)
    #expect(read.last?.allowed == false)
  }
}
