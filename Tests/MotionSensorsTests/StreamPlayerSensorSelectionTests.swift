// SPDX-License-Identifier: Apache-2.0

import XCTest

@testable import MotionSensors

/// A player switches off the sensors no subscriber needs: their readings are left out, and come
/// back when a subscriber asks for them.
final class StreamPlayerSensorSelectionTests: XCTestCase {
  private func collect(_ received: Locked<[MotionSample]>) -> @Sendable (SourceEvent) -> Void {
    { event in
      if case .sample(let sample) = event { received.withLock { $0.append(sample) } }
    }
  }

  func testOnlyTheSensorsSubscribersNeedAreDelivered() throws {
    let clock = VirtualClock()
    let player = StreamPlayer(
      SimulatedSensorStream(scenario: try Scenario.named("walk")), pacing: .virtual(clock))
    XCTAssertTrue(
      player.availableSensors.isSuperset(of: [
        .accelerometer, .gyroscope, .magnetometer, .barometer,
      ]))
    XCTAssertEqual(player.activeSensors, [])

    // A pedometer-like subscriber: accelerometer and barometer only.
    let pedometer = Locked<[MotionSample]>([])
    let pedometerSubscription = player.subscribe(
      requestedSampleRate: 100, sensors: [.accelerometer, .barometer], collect(pedometer))
    XCTAssertEqual(player.activeSensors, [.accelerometer, .barometer])
    clock.advance(by: 1)
    let first = pedometer.withLock { $0 }
    // About 100 Hz (the phone preset jitters timestamps, so a sample may fall either side of 1 s).
    XCTAssertTrue((99...102).contains(first.count), "\(first.count) samples in 1 s")
    XCTAssertTrue(
      first.allSatisfy { $0.sensors == [.accelerometer, .barometer] },
      "gyroscope or magnetometer delivered")

    // A gyroscope subscriber switches the gyroscope on, for everyone (one stream of samples).
    let gyroscope = Locked<[MotionSample]>([])
    let gyroscopeSubscription = player.subscribe(
      requestedSampleRate: 100, sensors: [.gyroscope], collect(gyroscope))
    XCTAssertEqual(player.activeSensors, [.accelerometer, .gyroscope, .barometer])
    clock.advance(by: 1)
    XCTAssertTrue((98...102).contains(gyroscope.withLock { $0.count }))
    XCTAssertTrue(
      gyroscope.withLock { $0 }.allSatisfy { $0.gyroscope != nil && $0.magnetometer == nil })

    // When it leaves, the gyroscope is off again.
    gyroscopeSubscription.cancel()
    XCTAssertEqual(player.activeSensors, [.accelerometer, .barometer])
    clock.advance(by: 1)
    let last = pedometer.withLock { $0 }
    XCTAssertTrue((298...303).contains(last.count), "\(last.count) samples in 3 s")
    XCTAssertTrue(last.suffix(100).allSatisfy { $0.gyroscope == nil })

    // The values that are delivered are the stream's own, bit for bit (switching a sensor off
    // must not change the others: the simulator draws all noise from one seeded generator).
    var reference = SimulatedSensorStream(scenario: try Scenario.named("walk"))
    for sample in last {
      let expected = try XCTUnwrap(reference.next())
      XCTAssertEqual(sample.timestamp, expected.timestamp)
      XCTAssertEqual(sample.accelerometer, expected.accelerometer)
      XCTAssertEqual(sample.pressure, expected.pressure)
    }
    pedometerSubscription.cancel()
    XCTAssertEqual(player.activeSensors, [])
  }

  func testThePlainSubscriptionGetsEverySensor() throws {
    let clock = VirtualClock()
    let player = StreamPlayer(
      SimulatedSensorStream(scenario: try Scenario.named("walk")), pacing: .virtual(clock))
    let received = Locked<[MotionSample]>([])
    let subscription = player.subscribe(requestedSampleRate: 100, collect(received))
    XCTAssertEqual(player.activeSensors, player.availableSensors)
    clock.advance(by: 0.5)
    XCTAssertTrue(received.withLock { $0 }.allSatisfy { $0.sensors == player.availableSensors })
    subscription.cancel()
  }
}
