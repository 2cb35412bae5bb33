// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionDaemonProtocol
import MotionSensors
import Testing

@testable import MotionDaemon

#if canImport(Glibc)
  import Glibc
#endif

/// Live activity changes on a connection whose reader falls behind its sample stream. A session
/// alone, without a daemon: the test delivers what the source and the detectors would.
@Suite struct ClientSessionLiveActivityTests {
  /// The subscription of the raw stream and the one of activity changes.
  private static let samplesID: UInt64 = 7
  private static let activityID: UInt64 = 8

  /// A 100 Hz accelerometer stream and an activity subscription on one connection whose client
  /// reads nothing for a while: the ring of stream messages fills and drops its oldest. An
  /// activity change delivered then, followed by more samples, used to go into that ring and be
  /// dropped with them, reported nowhere (a live update has no `dropped_before`), and the app
  /// showed the activity before it until the next change. It now waits in its subscription's
  /// own slot and arrives once the client reads.
  @Test func anActivityChangeIsNotDroppedBehindSamples() throws {
    let (client, socket) = try RawConnection.accepted(prefix: "session-activity")
    let capacity = 4
    let session = ClientSession(
      id: 1, socket: socket, streamCapacity: capacity, limits: ClientSession.Limits(),
      logger: Logger(label: "test"), onRequest: { _, _ in [] }, authorizationNotice: { nil },
      onClose: { _ in })
    #expect(
      session.addSubscription(
        ClientSubscription(
          id: Self.samplesID, sensors: [.accelerometer], rate: 100, pedometer: false,
          activity: false, altitude: false),
        daemonIsFull: false) == .added)
    #expect(
      session.addSubscription(
        ClientSubscription(
          id: Self.activityID, sensors: [], rate: 100, pedometer: false, activity: true,
          altitude: false),
        daemonIsFull: false) == .added)
    session.start()
    defer { session.close() }

    var timestamp = 0.0
    func deliverSamples(_ count: Int) {
      for _ in 0..<count {
        timestamp += 0.01
        session.deliver(
          MotionSample(timestamp: timestamp, accelerometer: [0, 0, 9.81]),
          receivedBootNanoseconds: 0)
      }
    }
    // Samples until the socket's buffers are full and the writer waits in `write`: the ring then
    // stays full although the writer had time to take it.
    let deadline = Date().addingTimeInterval(60)
    while true {
      deliverSamples(1_000)
      Thread.sleep(forTimeInterval: 0.1)
      if session.snapshot.queued == capacity { break }
      try #require(Date() < deadline, "the writer never stopped on a full socket")
    }
    let droppedBefore = session.snapshot.dropped
    #expect(droppedBefore > 0)

    var walking = Opencoremotion_Daemon_V1_LiveUpdate()
    walking.activity.startDate = 1_000
    walking.activity.walking = true
    walking.activity.confidence = 2
    session.deliver(LiveUpdate(kind: .activity, wire: walking))
    // Enough samples to push every message queued before them out of the ring.
    deliverSamples(10 * capacity)
    #expect(session.snapshot.dropped >= droppedBefore + UInt64(10 * capacity) - 1)

    var activities: [Opencoremotion_Daemon_V1_ActivitySegment] = []
    var samples = 0
    while let message = try client.receive(seconds: 3) {
      switch message.body {
      case .live(let live):
        #expect(message.requestID == Self.activityID)
        if case .activity(let segment) = live.update { activities.append(segment) }
      case .samples: samples += 1
      default: break
      }
    }
    #expect(samples > 0)
    #expect(activities.count == 1)
    #expect(activities.first?.walking == true)
    #expect(activities.first?.startDate == 1_000)
  }

  /// Two changes while the client does not read: the slot holds the later one, the activity in
  /// force, and the earlier one is counted as dropped.
  @Test func aLaterActivityChangeReplacesOneNotYetWritten() throws {
    let (client, socket) = try RawConnection.accepted(prefix: "session-activity")
    let session = ClientSession(
      id: 1, socket: socket, streamCapacity: 4, limits: ClientSession.Limits(),
      logger: Logger(label: "test"), onRequest: { _, _ in [] }, authorizationNotice: { nil },
      onClose: { _ in })
    _ = session.addSubscription(
      ClientSubscription(
        id: Self.activityID, sensors: [], rate: 100, pedometer: false, activity: true,
        altitude: false),
      daemonIsFull: false)
    // Not started: nothing is written until both changes are queued.
    for (date, walking) in [(1_000.0, true), (1_010.0, false)] {
      var update = Opencoremotion_Daemon_V1_LiveUpdate()
      update.activity.startDate = date
      update.activity.walking = walking
      update.activity.running = !walking
      session.deliver(LiveUpdate(kind: .activity, wire: update))
    }
    #expect(session.snapshot.dropped == 1)
    #expect(session.snapshot.queued == 1)
    session.start()
    defer { session.close() }
    var dates: [Double] = []
    while let message = try client.receive(seconds: 2) {
      if case .live(let live) = message.body, case .activity(let segment) = live.update {
        dates.append(segment.startDate)
      }
    }
    #expect(dates == [1_010])
  }
}
