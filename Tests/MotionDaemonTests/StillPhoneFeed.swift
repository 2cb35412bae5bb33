// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionSensors

@_spi(Benchmarks) @testable import MotionDaemon

/// Feeds a ``HistoryService`` a phone lying still at 50 Hz (a hundredth of a g of seeded noise),
/// sample `k` at `epoch + k / 50` s since 1970 on the wall clock and `100 + k / 50` s on the
/// source's clock.
struct StillPhoneFeed {
  static let epoch = 1_800_000_000.0
  let service: HistoryService
  /// Added to every sample's wall-clock time, s (a machine suspended meanwhile moves it on).
  var wallClockOffset = 0.0
  private var random = UInt64(42)

  init(service: HistoryService) {
    self.service = service
  }

  /// Feeds samples `range`.
  mutating func feed(_ range: Range<Int>) {
    for k in range {
      let t = Double(k) * 0.02
      random = random &* 6_364_136_223_846_793_005 &+ 1
      let jitter = Double(random >> 40) / Double(1 << 24) * 0.02 - 0.01
      let sample = MotionSample(
        timestamp: 100 + t, accelerometer: SIMD3(jitter, -jitter, 9.80665 + jitter),
        gyroscope: SIMD3(0, 0, 0), pressure: 101.3)
      _ = service.process(sample, now: Self.epoch + t + wallClockOffset)
    }
  }
}

/// A started ``HistoryService`` on a store in a temporary folder, flushing every 50 ms and
/// retrying every 100 ms; ``remove()`` deletes the folder.
struct TemporaryHistory {
  let directory: String
  let service: HistoryService

  init(_ name: String) {
    directory =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("history-\(name)-\(UUID().uuidString)").path
    var settings = HistoryService.Settings(directory: directory)
    settings.flushInterval = 0.05
    settings.retryInterval = 0.1
    service = HistoryService(settings: settings, logger: Logger(label: "test"))
    service.start()
  }

  /// Stops the service and opens its store as the next daemon would (the caller closes it).
  func storeAfterStop() throws -> HistoryStore {
    service.stop()
    return try HistoryStore.open(directory: directory, logger: Logger(label: "test"))
  }

  func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
