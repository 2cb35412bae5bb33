// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import Testing

@_spi(Benchmarks) @testable import MotionDaemon

@Suite struct HistoryStoreTests {
  let directory = "/tmp/motiond-store-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
  let logger = Logger(label: "test")

  @Test func pedometerTotalsCountPartialMinutesProRata() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try HistoryStore.open(directory: directory, logger: logger)
    defer { store.close() }
    var batch = HistoryBatch()
    var minute = HistoryBatch.StepDelta()
    minute.steps = 60
    minute.distance = 42
    batch.steps[6000] = minute
    batch.steps[6060] = minute
    try store.write(batch, firstIdentifier: 0)
    // A second write to the same minute adds to it.
    try store.write(batch, firstIdentifier: 0)
    let whole = try store.pedometerTotals(from: 6000, to: 6120)
    #expect(whole.steps == 240)
    #expect(abs(whole.distance - 168) < 1e-9)
    // Half of the first minute and a quarter of the second: 60 + 30 steps.
    let part = try store.pedometerTotals(from: 6030, to: 6075)
    #expect(part.steps == 90)
    // Outside the history: nothing, not an error.
    #expect(try store.pedometerTotals(from: 0, to: 100).steps == 0)
  }

  @Test func activityQueryStartsWithTheActivityInForce() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try HistoryStore.open(directory: directory, logger: logger)
    defer { store.close() }
    var batch = HistoryBatch()
    batch.activities = [
      .init(startDate: 100, timestamp: 1, flags: 1, confidence: 2),
      .init(startDate: 200, timestamp: 2, flags: 2, confidence: 1),
      .init(startDate: 300, timestamp: 3, flags: 4, confidence: 0),
    ]
    try store.write(batch, firstIdentifier: 0)
    #expect(try store.activities(from: 250, to: 400).map(\.startDate) == [200, 300])
    #expect(try store.activities(from: 100, to: 150).map(\.startDate) == [100])
    #expect(try store.activities(from: 0, to: 50).isEmpty)
  }

  @Test func recordedSamplesRoundTripWithInclusiveBoundsAndConsecutiveIdentifiers() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try HistoryStore.open(directory: directory, logger: logger)
    defer { store.close() }
    var batch = HistoryBatch()
    for k in 0..<100 {
      let t = Double(k) * 0.02
      batch.recorded.append(
        .init(timestamp: 50 + t, date: 1000 + t, acceleration: SIMD3(0.5, -1.25, 9.80665)))
    }
    try store.write(batch, firstIdentifier: 7)
    var samples:
      [(identifier: UInt64, timestamp: Double, date: Double, acceleration: SIMD3<Double>)] = []
    try store.accelerometer(from: 1000.2, to: 1000.4) { samples += $0 }
    // Inclusive at both ends: 1000.20 … 1000.40 = 11 samples (timestamps stored to 1 µs).
    #expect(samples.count == 11)
    #expect(samples.first?.identifier == 17)
    #expect(samples.map(\.identifier) == Array(17...27))
    // Float32 storage: 0.5 and -1.25 are exact; 9.80665 within Float's 2^-24 relative step.
    #expect(samples.allSatisfy { $0.acceleration.x == 0.5 && $0.acceleration.y == -1.25 })
    #expect(samples.allSatisfy { abs($0.acceleration.z - 9.80665) < 9.80665 * 1e-7 })
    #expect(try store.nextIdentifier() == 107)
  }

  /// A read limited to a number of samples, resumed from where it stopped, gives exactly what
  /// one unlimited read gives, in the same order: also where the limit falls among samples
  /// sharing one date (50 at 1002 s, as a stalled clock would write), where it falls on the
  /// range's last sample (the next read then finds nothing and says so), and where two blocks
  /// overlap in time (the wall clock set back by 30 s between two writes), which a resumption by
  /// date would skip or repeat.
  @Test func aLimitedReadResumesAfterTheLastSampleItDelivered() throws {
    let directory = "/tmp/motiond-history-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try HistoryStore.open(directory: directory, logger: Logger(label: "test"))
    defer { store.close() }
    var batch = HistoryBatch()
    for k in 0..<250 {
      let t = (100..<150).contains(k) ? 2.0 : Double(k) * 0.02
      batch.recorded.append(.init(timestamp: 50 + t, date: 1000 + t, acceleration: .zero))
    }
    try store.write(batch, firstIdentifier: 1)
    // 100 more samples 1 s later on the source's clock, dated from 1000.5 s: inside the first
    // block's dates.
    var later = HistoryBatch()
    for k in 0..<100 {
      let t = Double(k) * 0.02
      later.recorded.append(.init(timestamp: 56 + t, date: 1000.5 + t, acceleration: .zero))
    }
    try store.write(later, firstIdentifier: 251)
    var whole: [UInt64] = []
    try store.accelerometer(from: 1000, to: 1010) { whole += $0.map(\.identifier) }
    #expect(whole == Array(1...350))
    for limit in [7, 25, 50, 249, 250, 350, 1_000] {
      var identifiers: [UInt64] = []
      var position: HistoryStore.RecordedPosition?
      var reads = 0
      repeat {
        var delivered = 0
        position = try store.accelerometer(from: 1000, to: 1010, after: position, limit: limit) {
          chunk in
          delivered += chunk.count
          identifiers += chunk.map(\.identifier)
        }
        #expect(delivered <= limit, "limit \(limit)")
        reads += 1
      } while position != nil && reads < 1_000
      #expect(identifiers == whole, "limit \(limit)")
      // One read per `limit` samples, and one more (finding nothing) when they divide evenly.
      #expect(reads == 350 / limit + 1, "limit \(limit)")
    }
  }

  @Test func pruningKeepsApplesRetention() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try HistoryStore.open(directory: directory, logger: logger)
    defer { store.close() }
    let now = 10_000_000.0
    var batch = HistoryBatch()
    batch.steps[Int64(now - 8 * 86_400)] = HistoryBatch.StepDelta()
    batch.steps[Int64(now - 6 * 86_400)] = HistoryBatch.StepDelta()
    batch.recorded = [
      .init(timestamp: 0, date: now - 4 * 86_400, acceleration: .zero),
      .init(timestamp: 172_800, date: now - 2 * 86_400, acceleration: .zero),
    ]
    try store.write(batch, firstIdentifier: 0)
    try store.prune(now: now)
    let extent = try #require(try store.extent())
    #expect(extent.oldest == now - 6 * 86_400)
    var dates: [Double] = []
    try store.accelerometer(from: now - 3 * 86_400, to: now) { dates += $0.map(\.date) }
    #expect(dates == [now - 2 * 86_400])
  }

  @Test func aCorruptFileIsMovedAsideAndANewStoreStarted() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = directory + "/" + HistoryStore.fileName
    try Data(repeating: 0x5a, count: 8192).write(to: URL(fileURLWithPath: path))
    let store = try HistoryStore.open(directory: directory, logger: logger)
    defer { store.close() }
    let names = try FileManager.default.contentsOfDirectory(atPath: directory)
    #expect(names.contains { $0.hasPrefix(HistoryStore.fileName + ".corrupt-") })
    var batch = HistoryBatch()
    batch.steps[60] = HistoryBatch.StepDelta()
    try store.write(batch, firstIdentifier: 0)
    #expect(try store.pedometerTotals(from: 0, to: 120).steps == 0)
    let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    #expect(mode == 0o600)
  }
}
