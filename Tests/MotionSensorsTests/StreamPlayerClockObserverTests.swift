// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation
import XCTest

@testable import MotionSensors

/// Under virtual pacing a player observes its clock while anyone subscribes. Two first subscribers
/// arriving together used to register an observer each (the second token overwrote the first), and
/// the one left over, never removed, went on consuming a sample at every advance of the clock with
/// nobody subscribed.
final class StreamPlayerClockObserverTests: XCTestCase {
  /// Races two first subscribers many times (a race: without the fix it is caught in some rounds,
  /// not in every one), then checks that after both left an advance consumed nothing: the next
  /// subscriber starts at the first sample.
  func testConcurrentFirstSubscribersLeaveNoObserverBehind() {
    let samples = (0..<10).map { index in
      MotionSample(timestamp: Double(index) * 0.01, accelerometer: SIMD3(0, 0, 9.8))
    }
    let descriptor = StreamDescriptor(
      name: "array", sensors: .accelerometer, nominalSampleRate: 100)
    var consumedRounds = 0
    for _ in 0..<20_000 {
      let clock = VirtualClock()
      let player = StreamPlayer(
        ArraySampleStream(samples, descriptor: descriptor), pacing: .virtual(clock))
      let subscriptions = Locked<[SourceSubscription]>([])
      DispatchQueue.concurrentPerform(iterations: 2) { _ in
        let subscription = player.subscribe(requestedSampleRate: 100) { _ in }
        subscriptions.withLock { $0.append(subscription) }
      }
      for subscription in subscriptions.withLock({ $0 }) { subscription.cancel() }
      // Nobody subscribes: nothing may be consumed.
      clock.advance(by: 1)
      let first = Locked<Double?>(nil)
      let subscription = player.subscribe(requestedSampleRate: 100) { event in
        if case .sample(let sample) = event { first.withLock { $0 = $0 ?? sample.timestamp } }
      }
      clock.advance(by: 0)
      subscription.cancel()
      if first.withLock({ $0 }) != 0 { consumedRounds += 1 }
    }
    XCTAssertEqual(consumedRounds, 0, "rounds in which a sample went to nobody")
  }
}
