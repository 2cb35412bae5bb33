// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath
import MotionSensors
import XCTest
import _MotionTestSupport

@testable import OpenCoreMotion

/// Synthetic sensor data for the OpenCoreMotion tests: exact readings of a device held in a known
/// attitude, in library units (specific force m/s², rad/s, µT, NWU earth frame).
enum Synthetic {
  /// The earth's field used throughout, µT, NWU: 20 µT north, 40 µT down.
  static let earthField = SIMD3<Double>(20, 0, -40)

  /// Device lying face up, x toward magnetic north.
  static let faceUp = Quaternion.identity
  /// Device upright in portrait (+y up), screen (+z) facing east.
  static let portrait = Quaternion(angle: .pi / 2, axis: SIMD3(1, 0, 0))

  /// The exact sample of a device at rest in `earthFromSensor` at `timestamp`.
  static func sample(
    at timestamp: Double, earthFromSensor: Quaternion, sensors: SensorSet = .nineAxis,
    specificForceInEarth: SIMD3<Double> = SIMD3(0, 0, Units.standardGravity),
    gyroscope: SIMD3<Double> = .zero
  ) -> MotionSample {
    let sensorFromEarth = earthFromSensor.conjugate
    return MotionSample(
      timestamp: timestamp,
      accelerometer: sensors.contains(.accelerometer)
        ? sensorFromEarth.act(on: specificForceInEarth) : nil,
      gyroscope: sensors.contains(.gyroscope) ? gyroscope : nil,
      magnetometer: sensors.contains(.magnetometer) ? sensorFromEarth.act(on: earthField) : nil)
  }

  /// `count` samples at `rate` Hz of a device at rest in `earthFromSensor`, starting at `start` s.
  static func still(
    _ earthFromSensor: Quaternion, rate: Double = 100, count: Int, start: Double = 1000,
    sensors: SensorSet = .nineAxis
  ) -> [MotionSample] {
    (0..<count).map { i in
      sample(at: start + Double(i) / rate, earthFromSensor: earthFromSensor, sensors: sensors)
    }
  }

  /// A player over `samples`, paced by `clock`.
  static func player(
    _ samples: [MotionSample], sensors: SensorSet = .nineAxis, rate: Double = 100,
    clock: VirtualClock, name: String = "synthetic"
  ) -> StreamPlayer {
    let descriptor = StreamDescriptor(name: name, sensors: sensors, nominalSampleRate: rate)
    return StreamPlayer(ArraySampleStream(samples, descriptor: descriptor), pacing: .virtual(clock))
  }
}

/// A serial queue for handlers, and a way to wait until everything queued so far has run.
func makeSerialQueue(_ name: String = "test") -> OperationQueue {
  let queue = OperationQueue()
  queue.name = name
  queue.maxConcurrentOperationCount = 1
  return queue
}

/// Thread-safe collection of whatever handlers receive.
final class Collector<Value>: @unchecked Sendable {
  private let values = Locked<[Value]>([])
  func append(_ value: Value) { values.withLock { $0.append(value) } }
  var all: [Value] { values.withLock { $0 } }
  var count: Int { values.withLock { $0.count } }
}

/// A source wrapper that counts live subscriptions, to check that consumers unsubscribe.
final class CountingSource: SensorSource, @unchecked Sendable {
  let base: any SensorSource
  private let active = Locked(0)

  init(_ base: any SensorSource) { self.base = base }

  var name: String { base.name }
  var availableSensors: SensorSet { base.availableSensors }
  var supportedSampleRates: ClosedRange<Double> { base.supportedSampleRates }
  var activeSubscriptions: Int { active.withLock { $0 } }

  func subscribe(
    requestedSampleRate: Double, _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    active.withLock { $0 += 1 }
    let inner = base.subscribe(requestedSampleRate: requestedSampleRate, handler)
    return SourceSubscription { [active] in
      inner.cancel()
      active.withLock { $0 -= 1 }
    }
  }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Asserts `actual` is within `accuracy` of `expected` in distance (``assertDistanceWithin``).
func XCTAssertVector(
  _ actual: SIMD3<Double>, _ expected: SIMD3<Double>, accuracy: Double, _ message: String = "",
  file: StaticString = #filePath, line: UInt = #line
) {
  assertDistanceWithin(actual, expected, tolerance: accuracy, message, file: file, line: line)
}

/// A stream whose fourth read fails, like a recording with a malformed fourth row.
struct FailingStream: SampleStream {
  var descriptor: StreamDescriptor {
    StreamDescriptor(name: "broken", sensors: .nineAxis, nominalSampleRate: 100)
  }
  private var count = 0

  mutating func next() throws -> MotionSample? {
    count += 1
    if count > 3 { throw SourceFailure(.malformedData, "row 4: not a number") }
    return Synthetic.sample(at: Double(count) / 100, earthFromSensor: .identity)
  }
}
