// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import SourceComposition
import XCTest

@testable import OpenCoreMotion

/// CMSensorRecorder: 50 Hz recording for the requested duration, inclusive query windows of at
/// most 12 h, Core Motion units, Swift iteration.
final class CMSensorRecorderTests: XCTestCase {
  func testRecordsAt50HzForTheRequestedDuration() throws {
    let clock = VirtualClock()
    // Lying face up, noiseless: every sample reads (0, 0, −1) g.
    let recorder = CMSensorRecorder(
      backend: HistoryFixture.history(
        HistoryFixture.player(HistoryFixture.liftScenario(), clock: clock)))
    recorder.recordAccelerometer(forDuration: 1.5)
    clock.advance(by: 10)
    let list = try XCTUnwrap(
      recorder.accelerometerData(from: HistoryFixture.anchor, to: HistoryFixture.date(60)))
    var samples: [CMRecordedAccelerometerData] = []
    for sample in list { samples.append(sample) }
    // 1.5 s at 50 Hz, both ends: 76 samples (one more or less for the edge rounding).
    XCTAssertEqual(Double(samples.count), 76, accuracy: 1)
    for (a, b) in zip(samples, samples.dropFirst()) {
      XCTAssertGreaterThan(b.identifier, a.identifier)
      // 50 Hz from a 100 Hz source: every second sample, to timestamp rounding.
      XCTAssertEqual(b.timestamp - a.timestamp, 0.02, accuracy: 1e-6)
    }
    let first = try XCTUnwrap(samples.first)
    XCTAssertEqual(
      first.startDate.timeIntervalSince(HistoryFixture.anchor), first.timestamp, accuracy: 1e-6)
    // Core Motion's sign and g: face up at rest is (0, 0, −1); 0.2 % for the simulator's g.
    XCTAssertEqual(first.acceleration.x, 0, accuracy: 1e-6)
    XCTAssertEqual(first.acceleration.z, -1, accuracy: 0.002)
    // Apple's Swift idiom over the list works too.
    var viaCast = 0
    for case let sample as CMAccelerometerData in list where sample.timestamp >= 0 { viaCast += 1 }
    XCTAssertEqual(viaCast, samples.count)
    // The bridge iOS apps write by hand (`NSFastEnumerationIterator(list)`) yields the same
    // samples.
    var bridged = NSFastEnumerationIterator(list)
    var bridgedIdentifiers: [UInt64] = []
    while let item = bridged.next() {
      bridgedIdentifiers.append(try XCTUnwrap(item as? CMRecordedAccelerometerData).identifier)
    }
    XCTAssertEqual(bridgedIdentifiers, samples.map(\.identifier))
  }

  func testQueryWindowsAreInclusiveAndAtMostTwelveHours() throws {
    let clock = VirtualClock()
    let recorder = CMSensorRecorder(
      backend: HistoryFixture.history(
        HistoryFixture.player(HistoryFixture.liftScenario(), clock: clock)))
    clock.advance(by: 2)
    // Requested after observation began: records from the latest sample on.
    recorder.recordAccelerometer(forDuration: 60)
    clock.advance(by: 3)
    let all = try XCTUnwrap(
      recorder.accelerometerData(from: HistoryFixture.anchor, to: HistoryFixture.date(100)))
    XCTAssertGreaterThan(all.count, 140)
    let stamps = all.map(\.timestamp)
    XCTAssertGreaterThanOrEqual(stamps.first ?? 0, 2 - 0.011)
    let one = all.map { $0 }[10]
    let exact = try XCTUnwrap(recorder.accelerometerData(from: one.startDate, to: one.startDate))
    XCTAssertEqual(exact.map(\.identifier), [one.identifier], "both ends are included")
    XCTAssertNil(
      recorder.accelerometerData(from: HistoryFixture.date(10), to: HistoryFixture.date(5)))
    XCTAssertNil(
      recorder.accelerometerData(from: HistoryFixture.anchor, to: HistoryFixture.date(43_200.001)))
    XCTAssertNotNil(
      recorder.accelerometerData(from: HistoryFixture.anchor, to: HistoryFixture.date(43_200)))
    XCTAssertEqual(
      recorder.accelerometerData(from: HistoryFixture.date(-50), to: HistoryFixture.date(-10))?
        .count, 0)
  }

  /// An app's duration or window that is not a number: a duration that is NaN, infinite or not
  /// positive records nothing (an infinite or huge one does not record for ever, nor size
  /// anything by it: 12 h at most), and a window with a NaN or infinite end is `nil`, as a
  /// reversed one is (a NaN date is not after any other, so only the length check catches it).
  func testDurationsAndWindowsThatAreNotNumbersAreRefused() throws {
    let clock = VirtualClock()
    let recorder = CMSensorRecorder(
      backend: HistoryFixture.history(
        HistoryFixture.player(HistoryFixture.liftScenario(), clock: clock)))
    for duration in [.nan, -.infinity, -1, 0] as [TimeInterval] {
      recorder.recordAccelerometer(forDuration: duration)
    }
    clock.advance(by: 2)
    XCTAssertEqual(
      recorder.accelerometerData(from: HistoryFixture.anchor, to: HistoryFixture.date(60))?.count,
      0)
    recorder.recordAccelerometer(forDuration: .infinity)
    recorder.recordAccelerometer(forDuration: .greatestFiniteMagnitude)
    clock.advance(by: 1)
    XCTAssertGreaterThan(
      recorder.accelerometerData(from: HistoryFixture.anchor, to: HistoryFixture.date(60))?.count
        ?? 0, 40)
    let nan = Date(timeIntervalSinceReferenceDate: .nan)
    let infinity = Date(timeIntervalSinceReferenceDate: .infinity)
    let minusInfinity = Date(timeIntervalSinceReferenceDate: -.infinity)
    for (from, to) in [
      (nan, HistoryFixture.date(60)), (HistoryFixture.anchor, nan), (nan, nan),
      (HistoryFixture.anchor, infinity), (minusInfinity, HistoryFixture.date(60)),
      (minusInfinity, minusInfinity), (infinity, infinity), (.distantPast, .distantFuture),
    ] {
      XCTAssertNil(recorder.accelerometerData(from: from, to: to), window(from, to))
    }
  }

  func testNothingIsRecordedWithoutARequestOrAnAccelerometer() {
    let clock = VirtualClock()
    let recorder = CMSensorRecorder(
      backend: HistoryFixture.history(
        HistoryFixture.player(HistoryFixture.liftScenario(), clock: clock)))
    clock.advance(by: 3)
    XCTAssertEqual(
      recorder.accelerometerData(from: HistoryFixture.anchor, to: HistoryFixture.date(10))?.count, 0
    )

    let gyroscopeOnly = CMSensorRecorder(
      backend: HistoryFixture.history(HistoryFixture.gyroscopeOnly(clock: clock)))
    gyroscopeOnly.recordAccelerometer(forDuration: 10)
    clock.advance(by: 3)
    XCTAssertNil(
      gyroscopeOnly.accelerometerData(from: HistoryFixture.anchor, to: HistoryFixture.date(10)))
    XCTAssertEqual(
      CMSensorRecorder.isAccelerometerRecordingAvailable(),
      SourceFactory.defaultSource.availableSensors.contains(.accelerometer))
  }

  func testRingBufferKeepsTheNewestSamples() {
    var buffer = DatedRecordBuffer<AccelerometerRecord>(capacity: 4)
    for i in 0..<10 {
      buffer.append(
        AccelerometerRecord(
          identifier: UInt64(i), timestamp: Double(i), date: HistoryFixture.date(Double(i)),
          acceleration: .zero))
    }
    XCTAssertEqual(buffer.count, 4)
    XCTAssertEqual(
      buffer.records(from: HistoryFixture.date(0), to: HistoryFixture.date(100)).map(\.identifier),
      [6, 7, 8, 9])
    XCTAssertEqual(
      buffer.records(from: HistoryFixture.date(7), to: HistoryFixture.date(8)).map(\.identifier),
      [7, 8])
    buffer.removeRecords(before: HistoryFixture.date(8))
    XCTAssertEqual(
      buffer.records(from: HistoryFixture.date(0), to: HistoryFixture.date(100)).map(\.identifier),
      [8, 9])
  }
}
