// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionSensors
import Testing

@_spi(Benchmarks) @testable import MotionDaemon

/// Denying motion history and allowing it again starts the history afresh: the store opened by
/// the allow records the activity in force. Before, the classifier kept its state across the
/// denial, the activity it had reported before it was never written again, and activity queries
/// since the allow found nothing while the person stayed at rest. (Found by a review of
/// 2026-11-29; its reproducer, in Swift Testing.)
@Suite struct HistoryServicePrivacyTests {
  @Test func allowingAfterADenialRecordsTheActivityInForce() throws {
    let history = TemporaryHistory("privacy")
    defer { history.remove() }
    let service = history.service
    defer { service.stop() }
    var phone = StillPhoneFeed(service: service)
    let epoch = StillPhoneFeed.epoch
    func feed(_ range: Range<Int>) { phone.feed(range) }
    func storedActivities(from: Double, to: Double) -> Int {
      Thread.sleep(forTimeInterval: 0.3)  // a few flushes
      let read = service.withStoreForQuery { try? $0.activities(from: from, to: to) }
      guard case .success(let changes?) = read else { return -1 }
      return changes.count
    }

    feed(0..<6_000)  // two minutes at rest
    #expect(storedActivities(from: epoch, to: epoch + 120) > 0)
    service.setAllowed(false)
    service.setAllowed(true)
    #expect(service.condition == .recording)
    phone.wallClockOffset = 600  // allowed again ten minutes later
    feed(6_000..<12_000)  // two more minutes, history allowed again
    #expect(storedActivities(from: epoch + 725, to: epoch + 840) > 0)
    // Nothing of before the denial: not the activity then in force, nor the unknown time of the
    // gap from the last sample before it (dated before the denial).
    #expect(storedActivities(from: epoch - 600, to: epoch + 700) == 0)
  }
}
