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
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("history-privacy-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var settings = HistoryService.Settings(directory: directory)
    settings.flushInterval = 0.05
    let service = HistoryService(settings: settings, logger: Logger(label: "test"))
    service.start()
    defer { service.stop() }
    let epoch = 1_800_000_000.0
    var random = UInt64(42)
    /// A phone lying still at 50 Hz (a hundredth of a g of noise), samples `range`.
    func feed(_ range: Range<Int>) {
      for k in range {
        let t = Double(k) * 0.02
        random = random &* 6_364_136_223_846_793_005 &+ 1
        let jitter = Double(random >> 40) / Double(1 << 24) * 0.02 - 0.01
        let sample = MotionSample(
          timestamp: 100 + t, accelerometer: SIMD3(jitter, -jitter, 9.80665 + jitter),
          gyroscope: SIMD3(0, 0, 0), pressure: 101.3)
        _ = service.process(sample, now: epoch + t)
      }
    }
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
    feed(6_000..<12_000)  // two more, history allowed again
    #expect(storedActivities(from: epoch + 125, to: epoch + 240) > 0)
  }
}
