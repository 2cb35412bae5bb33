// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath
import MotionRecognition
import MotionSensors
import XCTest
import _MotionTestSupport

@testable import OpenCoreMotion

/// The async-sequence additions.
final class CMMotionManagerAsyncSequenceTests: XCTestCase {
  func testAccelerometerSequenceIsPacedAndEndsWithTheRecording() async throws {
    let clock = VirtualClock()
    let manager = CMMotionManager(
      source: Synthetic.player(Synthetic.still(Synthetic.portrait, count: 100), clock: clock))
    manager.accelerometerUpdateInterval = 0.1
    let updates = manager.accelerometerUpdates()
    // Samples are buffered as the clock moves; the end of the stream finishes the sequence.
    clock.advance(by: 5)
    var stamps: [Double] = []
    for await data in updates {
      XCTAssertVector(data.acceleration.vector, SIMD3(0, -1, 0), accuracy: 1e-12)
      stamps.append(data.timestamp)
    }
    XCTAssertEqual(stamps.count, 10)
    XCTAssertEqual(stamps.first ?? 0, 1000, accuracy: 1e-9)
    XCTAssertEqual(stamps.last ?? 0, 1000.9, accuracy: 1e-9)
    XCTAssertFalse(manager.isAccelerometerActive, "sequences do not touch the handler API state")
  }

  func testLeavingTheLoopCancelsTheSubscription() async throws {
    let clock = VirtualClock()
    let source = CountingSource(
      Synthetic.player(Synthetic.still(.identity, count: 1000), clock: clock))
    let manager = CMMotionManager(source: source)
    // The usual shape: the sequence lives only as long as the loop that consumes it.
    let gyroCount = await firstUpdates(of: manager.gyroUpdates(), count: 5) {
      XCTAssertEqual(source.activeSubscriptions, 1)
      clock.advance(by: 0.5)
    }
    XCTAssertEqual(gyroCount.count, 5)
    await waitForNoSubscriptions(source)
    XCTAssertEqual(source.activeSubscriptions, 0)

    let motions = await firstUpdates(
      of: manager.deviceMotionUpdates(using: .xMagneticNorthZVertical), count: 3
    ) { clock.advance(by: 0.5) }
    XCTAssertEqual(motions.count, 3)
    XCTAssertTrue(motions.allSatisfy { abs($0.heading - 270) < 1e-6 })
    await waitForNoSubscriptions(source)
    XCTAssertEqual(source.activeSubscriptions, 0)
  }

  func testCancellingTheConsumingTaskCancelsTheSubscription() async throws {
    let clock = VirtualClock()
    let source = CountingSource(
      Synthetic.player(Synthetic.still(.identity, count: 1000), clock: clock))
    let manager = CMMotionManager(source: source)
    let updates = manager.accelerometerUpdates()
    let task = Task {
      var count = 0
      for await _ in updates { count += 1 }
      return count
    }
    XCTAssertEqual(source.activeSubscriptions, 1)
    task.cancel()
    _ = await task.value
    await waitForNoSubscriptions(source)
    XCTAssertEqual(source.activeSubscriptions, 0)
  }

  /// The subscription ends on a background queue soon after the consumer stops (see
  /// StreamTermination: not on the cancelling thread); allow 5 s on a loaded machine.
  private func waitForNoSubscriptions(_ source: CountingSource) async {
    for _ in 0..<500 where source.activeSubscriptions > 0 {
      try? await Task.sleep(for: .milliseconds(10))
    }
  }

  /// Collects the first `count` elements of `sequence` after running `produce`, then drops it.
  private func firstUpdates<Element>(
    of sequence: MotionUpdateSequence<Element>, count: Int, produce: () -> Void
  ) async -> [Element] {
    produce()
    var result: [Element] = []
    for await element in sequence {
      result.append(element)
      if result.count == count { break }
    }
    return result
  }

  func testSequenceAndHandlerShareTheFusionProducer() async throws {
    let clock = VirtualClock()
    let source = CountingSource(
      Synthetic.player(Synthetic.still(.identity, count: 100), clock: clock))
    let manager = CMMotionManager(source: source)
    manager.startDeviceMotionUpdates()
    let motions = manager.deviceMotionUpdates()
    XCTAssertEqual(source.activeSubscriptions, 1)
    clock.advance(by: 0.2)
    var iterator = motions.makeAsyncIterator()
    let first = await iterator.next()
    XCTAssertEqual(first?.timestamp ?? 0, 1000, accuracy: 1e-9)
    XCTAssertEqual(manager.deviceMotion?.timestamp ?? 0, 1000.2, accuracy: 1e-9)
    manager.stopDeviceMotionUpdates()
  }

  func testSequencesOutliveTheirManager() async {
    let clock = VirtualClock()
    let player = Synthetic.player(Synthetic.still(.identity, count: 30), clock: clock)
    // The managers are temporaries, released before the first sample arrives.
    let motions = CMMotionManager(source: player).deviceMotionUpdates()
    let gyro = CMMotionManager(source: player).gyroUpdates()
    clock.advance(by: 1)
    var motionCount = 0
    for await _ in motions { motionCount += 1 }
    var gyroCount = 0
    for await _ in gyro { gyroCount += 1 }
    XCTAssertEqual(motionCount, 30)
    XCTAssertEqual(gyroCount, 30)
  }

  /// A handler keeps the shared fusion pipeline past the end of the recording; a sequence started
  /// afterwards used to join that finished connection and wait for ever (the raw sequences ended
  /// at once). It must end, as they do.
  func testDeviceMotionSequenceStartedAfterTheEndFinishes() async throws {
    let clock = VirtualClock()
    let manager = CMMotionManager(
      source: Synthetic.player(Synthetic.still(.identity, count: 30), clock: clock))
    let delivered = Collector<Double>()
    manager.startDeviceMotionUpdates(to: makeSerialQueue()) { motion, _ in
      if let motion { delivered.append(motion.timestamp) }
    }
    clock.advance(by: 1)
    let motions = manager.deviceMotionUpdates()
    let count = try await withDeadline(seconds: 20, "a device-motion sequence after the end") {
      var count = 0
      for await _ in motions { count += 1 }
      return count
    }
    XCTAssertEqual(count, 0)
    manager.stopDeviceMotionUpdates()
  }

  func testMissingSensorEndsWithNotAvailable() async {
    let manager = CMMotionManager(source: EmptySensorSource())
    let updates = manager.magnetometerUpdates()
    for await _ in updates { XCTFail("no data expected") }
    let error = updates.error as NSError?
    XCTAssertEqual(error?.domain, CMErrorDomain)
    XCTAssertEqual(error?.code, Int(CMErrorNotAvailable.rawValue))
  }

  func testUnavailableFrameEndsWithTheHandlerError() async {
    let clock = VirtualClock()
    let manager = CMMotionManager(
      source: Synthetic.player(
        Synthetic.still(.identity, count: 10, sensors: .inertial), sensors: .inertial, clock: clock)
    )
    let updates = manager.deviceMotionUpdates(using: .xTrueNorthZVertical)
    // `for await` compiles as well; nothing is thrown.
    var count = 0
    for await _ in updates { count += 1 }
    XCTAssertEqual(count, 0)
    XCTAssertEqual((updates.error as NSError?)?.code, Int(CMErrorTrueNorthNotAvailable.rawValue))
  }

  func testSourceFailureEndsTheSequenceWithCMErrorUnknown() async {
    let clock = VirtualClock()
    let manager = CMMotionManager(source: StreamPlayer(FailingStream(), pacing: .virtual(clock)))
    let updates = manager.deviceMotionUpdates()
    clock.advance(by: 1)
    var count = 0
    for await _ in updates { count += 1 }
    XCTAssertEqual(count, 3)
    let error = updates.error as NSError?
    XCTAssertEqual(error?.code, Int(CMErrorUnknown.rawValue))
    XCTAssertTrue(error?.localizedDescription.contains("row 4") ?? false)
    XCTAssertNil(manager.accelerometerUpdates().error)
  }
}

/// Wall-clock players run on their own thread; no virtual clock, no sleeping: the recording plays
/// as fast as possible and the sequence ends with it.
final class CMMotionManagerThreadedPlaybackTests: XCTestCase {
  /// Cancelling a consumer while the player thread is delivering to it must not deadlock: the
  /// stream's termination used to wait for the delivery under the runtime's lock on the cancelled
  /// task, while the delivery waited for that lock to resume the task (a CI run hung there). Each
  /// round cancels mid-playback, once on a plain sequence and once on a gesture sequence (a task
  /// whose cancellation cancels an inner one). A deadlock would hold the rounds past the deadline.
  func testCancellingWhileSamplesArriveNeverDeadlocks() async throws {
    let rounds = 150
    // Every round plays the same 20,000 samples on a player of its own: made once, as making them
    // (a rotation per sample, in a debug build) took most of the test's time, 150 times over.
    let samples = Synthetic.still(Synthetic.portrait, count: 20_000)
    let finished = try await withDeadline(seconds: 120, "\(rounds) cancellations during playback") {
      var finished = 0
      for round in 0..<rounds {
        let manager = CMMotionManager(source: Self.fastPlayer(samples))
        let consumer: Task<Void, Never>
        if round.isMultiple(of: 2) {
          let updates = manager.accelerometerUpdates()
          consumer = Task { for await _ in updates {} }
        } else {
          let taps = manager.motionEvents(detectedBy: TapDetector())
          consumer = Task { do { for try await _ in taps {} } catch {} }
        }
        try await Task.sleep(for: .microseconds(UInt64(round % 7) * 300))
        consumer.cancel()
        await consumer.value
        finished += 1
      }
      return finished
    }
    XCTAssertEqual(finished, rounds)
  }

  private func fastPlayer(count: Int) -> StreamPlayer { Self.fastPlayer(count: count) }

  private static func fastPlayer(count: Int) -> StreamPlayer {
    fastPlayer(Synthetic.still(Synthetic.portrait, count: count))
  }

  private static func fastPlayer(_ samples: [MotionSample]) -> StreamPlayer {
    let descriptor = StreamDescriptor(name: "fast", sensors: .nineAxis, nominalSampleRate: 100)
    return StreamPlayer(
      ArraySampleStream(samples, descriptor: descriptor), pacing: .asFastAsPossible)
  }

  func testAsFastAsPossiblePlaybackDeliversEveryDueSample() async throws {
    // One consumer per player: a second subscriber would join a playback already under way.
    let manager = CMMotionManager(source: fastPlayer(count: 2000))
    manager.deviceMotionUpdateInterval = 0.02
    var motionCount = 0
    var lastTimestamp = -Double.infinity
    for await motion in manager.deviceMotionUpdates() {
      XCTAssertGreaterThan(motion.timestamp, lastTimestamp)
      lastTimestamp = motion.timestamp
      XCTAssertVector(motion.gravity.vector, SIMD3(0, -1, 0), accuracy: 1e-6)
      motionCount += 1
    }
    XCTAssertEqual(motionCount, 1000)

    let other = CMMotionManager(source: fastPlayer(count: 2000))
    other.accelerometerUpdateInterval = 0.02
    var accelerationCount = 0
    for await _ in other.accelerometerUpdates() { accelerationCount += 1 }
    XCTAssertEqual(accelerationCount, 1000)
  }

  func testAsFastAsPossiblePlaybackWithAHandler() {
    let manager = CMMotionManager(source: fastPlayer(count: 500))
    let queue = makeSerialQueue()
    let finished = expectation(description: "last sample")
    let count = Collector<Double>()
    manager.startGyroUpdates(to: queue) { data, _ in
      count.append(data!.timestamp)
      if count.count == 500 { finished.fulfill() }
    }
    wait(for: [finished], timeout: 30)
    manager.stopGyroUpdates()
    XCTAssertEqual(count.all, count.all.sorted())
  }
}
