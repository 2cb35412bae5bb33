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
  private static func authorizationMessage(
    _ allowed: Bool, requestID: UInt64 = 0
  )
    -> WireServerMessage
  {
    var message = WireServerMessage()
    message.requestID = requestID
    var authorization = Opencoremotion_Daemon_V1_Authorization()
    authorization.historyAuthorized = allowed
    message.authorization = authorization
    return message
  }

  /// Serves authorization queries `requestIDs` through a session whose handler is `answer`
  /// (given the session, the request's id, the authorization, which starts allowed and which
  /// the handler may change, and the count of notices the writer has built so far), with
  /// notices built from that authorization; returns every authorization message the client
  /// read, in order, until it has been quiet for 3 s.
  private func authorizationsRead(
    queries requestIDs: [UInt64],
    answer:
      @escaping @Sendable (ClientSession, UInt64, Locked<Bool>, Locked<Int>) -> [WireServerMessage]
  ) throws -> [(requestID: UInt64, allowed: Bool)] {
    let (client, socket) = try RawConnection.accepted(prefix: "session-notice")
    let allowed = Locked(true)
    let noticesBuilt = Locked(0)
    let session = ClientSession(
      id: 1, socket: socket, streamCapacity: 8, limits: ClientSession.Limits(),
      logger: Logger(label: "test"),
      onRequest: { session, request in
        answer(session, request.requestID, allowed, noticesBuilt)
      },
      authorizationNotice: {
        noticesBuilt.withLock { $0 += 1 }
        return Self.authorizationMessage(allowed.withLock { $0 })
      },
      onClose: { _ in })
    session.start()
    defer { session.close() }
    try client.write(
      requestIDs.flatMap { id in
        DaemonProcessTests.frame(id) {
          $0.authorizationQuery = Opencoremotion_Daemon_V1_AuthorizationQuery()
        }
      })
    var read: [(requestID: UInt64, allowed: Bool)] = []
    while let message = try client.receive(seconds: 3) {
      guard case .authorization(let authorization) = message.body else { continue }
      read.append((message.requestID, authorization.historyAuthorized))
    }
    return read
  }

  /// An authorization answer computed, then another client denies history before the answer is
  /// queued, and the session's writer sends the notice of the denial at once (nothing is queued
  /// ahead of it). The answer, written after, says "allowed": before, that stale answer was the
  /// last word and the client's cache kept it; now a fresh notice follows it.
  @Test func anAnswerComputedBeforeAChangeIsFollowedByAFreshNotice() throws {
    let read = try authorizationsRead(queries: [5]) { session, id, allowed, noticesBuilt in
      let reply = Self.authorizationMessage(allowed.withLock { $0 }, requestID: id)
      // Another client's denial lands between computing the answer and queueing it.
      allowed.withLock { $0 = false }
      session.notifyAuthorizationChange()
      // The writer takes that notice before the answer is queued (a loaded machine may take a
      // while to run it: wait for it rather than for a fixed time).
      let deadline = Date().addingTimeInterval(30)
      while noticesBuilt.withLock({ $0 }) == 0, Date() < deadline {
        Thread.sleep(forTimeInterval: 0.01)
      }
      return [reply]
    }
    // The notice of the denial, the stale answer, then the fresh notice.
    #expect(read.map(\.requestID) == [0, 5, 0])
    #expect(read.map(\.allowed) == [false, true, false])
    #expect(read.last?.allowed == false)
  }

  /// A change while earlier replies are still queued: the notice waits for them (an older
  /// answer must not overtake it) but not for replies queued after the change.
  ///
  /// The change happens while the second answer is being computed, so that answer is followed by
  /// a fresh notice too. Whether that is a second notice or the first one still waiting depends on
  /// whether the writer had sent the first before the answer was queued: the client reads three
  /// or four messages, and every one after the first answer says "denied".
  @Test func aNoticeGoesOutAfterTheRepliesQueuedBeforeTheChange() throws {
    let read = try authorizationsRead(queries: [1, 2]) { session, id, allowed, _ in
      if id == 2 {
        // The first answer is queued: this change comes after it.
        allowed.withLock { $0 = false }
        session.notifyAuthorizationChange()
      }
      return [Self.authorizationMessage(allowed.withLock { $0 }, requestID: id)]
    }
    #expect(read.first?.requestID == 1)
    #expect(read.first?.allowed == true)
    #expect((3...4).contains(read.count), "\(read)")
    #expect(read.dropFirst().allSatisfy { !$0.allowed }, "\(read)")
    #expect(read.filter { $0.requestID == 2 }.count == 1, "\(read)")
    #expect(read.first { $0.requestID == 0 } != nil, "a notice: \(read)")
    #expect(read.last?.requestID == 0 || read.last?.requestID == 2, "\(read)")
  }
}
