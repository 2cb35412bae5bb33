// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath
import XCTest
import _MotionTestSupport

@testable import MotionSensors

final class RecordingOpenCoreMotionCSVTests: XCTestCase {
  /// Random samples whose sensors tick independently, with full ground truth and awkward numbers.
  private func makeSamples(count: Int, seed: UInt64) -> [MotionSample] {
    var rng = SplitMix64(seed: seed)
    var samples: [MotionSample] = []
    var t = 1234.5
    let awkward: [Double] = [
      0, -0.0, 1e-300, -2.5e-308, 1.7976931348623157e308, 0.1, 1 / 3, .leastNonzeroMagnitude,
    ]
    func value() -> Double {
      if Int.random(in: 0..<10, using: &rng) == 0 { return awkward.randomElement(using: &rng)! }
      return rng.nextGaussian() * pow(10, Double.random(in: -5...5, using: &rng))
    }
    func vector() -> SIMD3<Double> { SIMD3(value(), value(), value()) }
    for i in 0..<count {
      t += Double.random(in: 0...0.02, using: &rng)  // equal timestamps are allowed
      var sample = MotionSample(timestamp: t)
      if i % 2 == 0 || Bool.random(using: &rng) { sample.accelerometer = vector() }
      if Bool.random(using: &rng) { sample.gyroscope = vector() }
      if Bool.random(using: &rng) { sample.magnetometer = vector() }
      if Bool.random(using: &rng) { sample.pressure = 101.325 + value() }
      if Bool.random(using: &rng) { sample.temperature = value() }
      var truth = GroundTruth()
      truth.earthFromSensor = rng.nextUnitQuaternion()
      truth.angularVelocity = vector()
      if Bool.random(using: &rng) { truth.gyroscopeBias = vector() }
      truth.gravity = vector()
      truth.linearAcceleration = vector()
      if Bool.random(using: &rng) { truth.position = vector() }
      truth.isMovementPhase = Bool.random(using: &rng) ? Bool.random(using: &rng) : nil
      sample.groundTruth = truth
      samples.append(sample)
    }
    return samples
  }

  private func bits(_ v: SIMD3<Double>?) -> [UInt64]? {
    v.map { [$0.x.bitPattern, $0.y.bitPattern, $0.z.bitPattern] }
  }
  private func bits(_ q: Quaternion?) -> [UInt64]? {
    q.map { [$0.w, $0.x, $0.y, $0.z].map(\.bitPattern) }
  }

  /// Equality down to the bit (so that −0.0 and 0.0 differ), field by field.
  private func assertBitIdentical(
    _ a: MotionSample, _ b: MotionSample, seed: UInt64, line: UInt = #line
  ) {
    let context = "seed \(seed), t = \(a.timestamp)"
    XCTAssertEqual(a.timestamp.bitPattern, b.timestamp.bitPattern, context, line: line)
    XCTAssertEqual(bits(a.accelerometer), bits(b.accelerometer), context, line: line)
    XCTAssertEqual(bits(a.gyroscope), bits(b.gyroscope), context, line: line)
    XCTAssertEqual(bits(a.magnetometer), bits(b.magnetometer), context, line: line)
    XCTAssertEqual(a.pressure?.bitPattern, b.pressure?.bitPattern, context, line: line)
    XCTAssertEqual(a.temperature?.bitPattern, b.temperature?.bitPattern, context, line: line)
    let x = a.groundTruth
    let y = b.groundTruth
    XCTAssertEqual(x == nil, y == nil, context, line: line)
    XCTAssertEqual(bits(x?.earthFromSensor), bits(y?.earthFromSensor), context, line: line)
    XCTAssertEqual(bits(x?.angularVelocity), bits(y?.angularVelocity), context, line: line)
    XCTAssertEqual(bits(x?.gyroscopeBias), bits(y?.gyroscopeBias), context, line: line)
    XCTAssertEqual(bits(x?.gravity), bits(y?.gravity), context, line: line)
    XCTAssertEqual(bits(x?.linearAcceleration), bits(y?.linearAcceleration), context, line: line)
    XCTAssertEqual(bits(x?.position), bits(y?.position), context, line: line)
    XCTAssertEqual(x?.isMovementPhase, y?.isMovementPhase, context, line: line)
  }

  func testWriteThenReadIsBitIdenticalIncludingGroundTruth() throws {
    let seed = testSeed()
    let samples = makeSamples(count: 2000, seed: seed)
    let folder = try RecordingFixtureFolder()
    let url = folder.url.appendingPathComponent("round-trip.csv")
    let descriptor = StreamDescriptor(
      name: "simulator:tour",
      sensors: [.accelerometer, .gyroscope, .magnetometer, .barometer, .thermometer],
      nominalSampleRate: 100, hasGroundTruth: true,
      metadata: ["device": "test rig", "note": "two\nlines, a \\ backslash", "odd:key": "x"])
    let writer = try RecordingWriter(url: url, descriptor: descriptor, includeGroundTruth: true)
    for sample in samples { try writer.append(sample) }
    try writer.finish()

    var stream = try RecordingReader.open(url)
    XCTAssertEqual(stream.format, .opencoremotion)
    XCTAssertEqual(stream.descriptor.sensors, descriptor.sensors)
    XCTAssertEqual(stream.descriptor.nominalSampleRate, 100)
    XCTAssertTrue(stream.descriptor.hasGroundTruth)
    XCTAssertEqual(stream.descriptor.metadata["device"], "test rig")
    XCTAssertEqual(stream.descriptor.metadata["note"], "two\nlines, a \\ backslash")
    XCTAssertEqual(stream.descriptor.metadata["odd_key"], "x")
    XCTAssertEqual(stream.descriptor.metadata["source"], "simulator:tour")
    let read = try stream.collect()
    XCTAssertEqual(read.count, samples.count, "seed \(seed)")
    for (a, b) in zip(samples, read) { assertBitIdentical(a, b, seed: seed) }
    XCTAssertEqual(folder.fileNames, ["round-trip.csv"], "no temporary file is left behind")
  }

  func testSimulatedScenarioRoundTripsBitForBit() throws {
    var scenario = try Scenario.named("tour")
    scenario.duration = 3
    var simulation = SimulatedSensorStream(scenario: scenario, seed: 7)
    let expected = try simulation.collect()
    XCTAssertGreaterThan(expected.count, 100)
    let folder = try RecordingFixtureFolder()
    let url = folder.url.appendingPathComponent("tour.csv")
    var replay = SimulatedSensorStream(scenario: scenario, seed: 7)
    let writer = try RecordingWriter(
      url: url, descriptor: replay.descriptor, includeGroundTruth: true)
    XCTAssertEqual(try writer.writeAll(from: &replay), expected.count)
    try writer.finish()
    var stream = try RecordingReader.open(url)
    XCTAssertEqual(stream.descriptor.sensors, simulation.descriptor.sensors)
    XCTAssertEqual(stream.descriptor.nominalSampleRate, simulation.descriptor.nominalSampleRate)
    let read = try stream.collect()
    XCTAssertEqual(read.count, expected.count)
    for (a, b) in zip(expected, read) { assertBitIdentical(a, b, seed: 7) }
  }

  /// A symbolic link at the destination is refused, and neither it nor its target is touched:
  /// renaming over it would replace the link, not write its target, and a planted link must not
  /// redirect the data elsewhere.
  func testWriterRefusesASymbolicLinkAndLeavesItAndItsTarget() throws {
    let folder = try RecordingFixtureFolder()
    let target = folder.url.appendingPathComponent("target.csv")
    try "keep".write(to: target, atomically: true, encoding: .utf8)
    let link = folder.url.appendingPathComponent("link.csv")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
    let descriptor = StreamDescriptor(name: "x", sensors: .nineAxis, nominalSampleRate: nil)
    XCTAssertThrowsError(try RecordingWriter(url: link, descriptor: descriptor)) { error in
      XCTAssertTrue("\(error)".contains("symbolic link"), "\(error)")
    }
    XCTAssertEqual(
      try FileManager.default.destinationOfSymbolicLink(atPath: link.path), target.path)
    XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), "keep")
  }

  /// A rate header no recording can have is a clear error: it used to be taken as the player's
  /// rate range (1...1e19 Hz), which a daemon replaying the file reported to `motionctl status`,
  /// whose `Int(rate)` trapped.
  func testARateHeaderBeyondOneMegahertzIsRefused() throws {
    let folder = try RecordingFixtureFolder()
    for (name, rate) in [("fast.csv", "1e19"), ("infinite.csv", "inf"), ("zero.csv", "0")] {
      let url = folder.url.appendingPathComponent(name)
      try
        "# OpenCoreMotion CSV\n# version: 1\n# nominal-sample-rate-hz: \(rate)\nt,acc_x,acc_y,acc_z\n0,0,0,9.81\n"
        .write(to: url, atomically: true, encoding: .utf8)
      XCTAssertThrowsError(try RecordingReader.open(url), rate) { error in
        XCTAssertTrue("\(error)".contains("nominal-sample-rate-hz"), "\(error)")
      }
    }
    let url = folder.url.appendingPathComponent("megahertz.csv")
    try
      "# OpenCoreMotion CSV\n# version: 1\n# nominal-sample-rate-hz: 1e6\nt,acc_x,acc_y,acc_z\n0,0,0,9.81\n"
      .write(to: url, atomically: true, encoding: .utf8)
    XCTAssertEqual(try RecordingReader.open(url).descriptor.nominalSampleRate, 1e6)
  }

  /// A rate estimated from decimal times 0.02 s apart is 50 Hz, so that the interval derived from
  /// it (1 / rate: a manager's default update interval) is 0.02 s. It was 49.99999999999996 Hz,
  /// the median interval being 0.020000000000000018 (1.02 − 1.0 in binary), and the interval
  /// 0.020000000000000018 s.
  func testARateEstimatedFromDecimalTimesIsTheRoundRate() throws {
    let folder = try RecordingFixtureFolder()
    let url = folder.url.appendingPathComponent("fifty.csv")
    let rows = (0..<150).map { "\(Double($0) * 0.02),0,0,9.81" }
    try ("# OpenCoreMotion CSV\n# version: 1\nt,acc_x,acc_y,acc_z\n" + rows.joined(separator: "\n"))
      .write(to: url, atomically: true, encoding: .utf8)
    let stream = try RecordingReader.open(url)
    XCTAssertEqual(stream.descriptor.metadata["nominalSampleRateEstimated"], "true")
    let rate = try XCTUnwrap(stream.descriptor.nominalSampleRate)
    XCTAssertEqual(rate, 50)
    XCTAssertEqual("\(1 / rate)", "0.02")
  }

  /// A rate the header may not give (one estimated from timestamps nanoseconds apart) is left out
  /// by the writer, so that what it writes reads back.
  func testTheWriterLeavesOutARateTheReaderWouldRefuse() throws {
    let folder = try RecordingFixtureFolder()
    let url = folder.url.appendingPathComponent("fast.csv")
    let writer = try RecordingWriter(
      url: url,
      descriptor: StreamDescriptor(name: "x", sensors: [.accelerometer], nominalSampleRate: 1e20))
    try writer.append(MotionSample(timestamp: 0, accelerometer: SIMD3(0, 0, 9.81)))
    try writer.append(MotionSample(timestamp: 0.01, accelerometer: SIMD3(0, 0, 9.81)))
    try writer.finish()
    let text = try String(contentsOf: url, encoding: .utf8)
    XCTAssertFalse(text.contains("nominal-sample-rate-hz"), text)
    XCTAssertEqual(try RecordingReader.readSamples(url).count, 2)
  }

  func testWithoutGroundTruthColumnsSamplesReadBackWithoutGroundTruth() throws {
    let seed = testSeed()
    let samples = makeSamples(count: 50, seed: seed).map { s -> MotionSample in
      var s = s
      s.pressure = nil
      s.temperature = nil
      return s
    }
    let folder = try RecordingFixtureFolder()
    let url = folder.url.appendingPathComponent("plain.csv")
    let writer = try RecordingWriter(
      url: url, descriptor: StreamDescriptor(name: "x", sensors: .nineAxis, nominalSampleRate: nil))
    XCTAssertEqual(writer.columnNames.count, 10)
    for sample in samples { try writer.append(sample) }
    try writer.finish()
    var stream = try RecordingReader.open(url)
    XCTAssertFalse(stream.descriptor.hasGroundTruth)
    XCTAssertEqual(
      stream.descriptor.metadata["nominalSampleRateEstimated"], "true", "no rate in the header")
    let read = try stream.collect()
    for (a, b) in zip(samples, read) {
      var expected = a
      expected.groundTruth = nil
      assertBitIdentical(expected, b, seed: seed)
    }
  }

  func testUnfinishedWriterLeavesNoOutputFile() throws {
    let folder = try RecordingFixtureFolder()
    let url = folder.url.appendingPathComponent("interrupted.csv")
    do {
      let writer = try RecordingWriter(
        url: url,
        descriptor: StreamDescriptor(name: "x", sensors: .inertial, nominalSampleRate: 100))
      for i in 0..<10_000 {
        try writer.append(
          MotionSample(
            timestamp: Double(i) / 100, accelerometer: SIMD3(0, 0, 9.81), gyroscope: .zero))
      }
      // Mid-recording: data has been flushed to the temporary file, but nothing at `url`.
      XCTAssertFalse(FileManager.default.fileExists(atPath: url.path))
      XCTAssertEqual(folder.fileNames.count, 1)
      XCTAssertTrue(
        folder.fileNames[0].hasPrefix(".interrupted.csv.partial-"), "\(folder.fileNames)")
    }
    // Dropped without finish(): the temporary file is gone and nothing appeared.
    XCTAssertFalse(FileManager.default.fileExists(atPath: url.path))
    XCTAssertEqual(folder.fileNames, [])

    let cancelled = try RecordingWriter(
      url: url, descriptor: StreamDescriptor(name: "x", sensors: .inertial, nominalSampleRate: 100))
    try cancelled.append(MotionSample(timestamp: 0, accelerometer: .zero, gyroscope: .zero))
    cancelled.cancel()
    XCTAssertEqual(folder.fileNames, [])
    XCTAssertThrowsError(
      try cancelled.append(MotionSample(timestamp: 1, accelerometer: .zero, gyroscope: .zero)))
  }

  func testFinishReplacesAnExistingFile() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write("old content\n", to: "r.csv")
    let writer = try RecordingWriter(
      url: url,
      descriptor: StreamDescriptor(name: "x", sensors: [.accelerometer], nominalSampleRate: 50))
    try writer.append(MotionSample(timestamp: 0, accelerometer: SIMD3(1, 2, 3)))
    XCTAssertEqual(try String(contentsOf: url, encoding: .utf8), "old content\n")
    try writer.finish()
    let samples = try RecordingReader.readSamples(url)
    XCTAssertEqual(samples, [MotionSample(timestamp: 0, accelerometer: SIMD3(1, 2, 3))])
  }

  func testWriterRejectsInvalidSamplesAndStaysUsable() throws {
    let folder = try RecordingFixtureFolder()
    let url = folder.url.appendingPathComponent("w.csv")
    let writer = try RecordingWriter(
      url: url,
      descriptor: StreamDescriptor(name: "x", sensors: [.accelerometer], nominalSampleRate: 50))
    try writer.append(MotionSample(timestamp: 1, accelerometer: SIMD3(1, 2, 3)))
    XCTAssertThrowsError(
      try writer.append(MotionSample(timestamp: 2, accelerometer: SIMD3(.nan, 0, 0))))
    XCTAssertThrowsError(try writer.append(MotionSample(timestamp: 0.5, accelerometer: .zero))) {
      error in
      XCTAssertTrue("\(error)".contains("earlier"), "\(error)")
    }
    XCTAssertThrowsError(try writer.append(MotionSample(timestamp: 3, gyroscope: .zero))) { error in
      XCTAssertTrue("\(error)".contains("gyroscope"), "\(error)")
    }
    try writer.append(MotionSample(timestamp: 4, accelerometer: .zero))
    try writer.finish()
    XCTAssertEqual(try RecordingReader.readSamples(url).map(\.timestamp), [1, 4])
  }

  func testHeaderIsSelfDescribing() throws {
    let folder = try RecordingFixtureFolder()
    let url = folder.url.appendingPathComponent("h.csv")
    var stream = ArraySampleStream(
      [MotionSample(timestamp: 0, accelerometer: SIMD3(0, 0, 9.81), gyroscope: SIMD3(0.5, 0, 0))],
      descriptor: StreamDescriptor(name: "sim", sensors: .inertial, nominalSampleRate: 200))
    let writer = try RecordingWriter(
      url: url, descriptor: stream.descriptor, includeGroundTruth: false)
    XCTAssertEqual(try writer.writeAll(from: &stream), 1)
    XCTAssertFalse(FileManager.default.fileExists(atPath: url.path), "not until finish()")
    try writer.finish()
    let text = try String(contentsOf: url, encoding: .utf8)
    let lines = text.split(separator: "\n").map(String.init)
    XCTAssertEqual(lines[0], "# OpenCoreMotion CSV")
    XCTAssertTrue(lines.contains("# version: 1"))
    XCTAssertTrue(lines.contains("# sensors: accelerometer,gyroscope"))
    XCTAssertTrue(lines.contains("# nominal-sample-rate-hz: 200.0"))
    XCTAssertTrue(lines.contains { $0.hasPrefix("# units: t=s acc=m/s^2") })
    XCTAssertTrue(lines.contains("t,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z"))
    XCTAssertEqual(lines.last, "0.0,0.0,0.0,9.81,0.5,0.0,0.0")
  }
}
