// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors
import MotionSensors
import XCTest

@testable import OpenCoreMotion

/// History queries are answered off the queue their handler runs on: the daemon's answer can take
/// seconds, and that queue may be the app's main queue (or, for the pedometer, the serial queue
/// its live updates and events share). Until 2026-11-30 the backend was asked inside the
/// handler's operation, so the queue stood still until the answer came.
final class HistoryQueryQueueTests: XCTestCase {
  /// Checks that an operation added to `queue` after `ask` runs while the history is still
  /// answering, then lets it answer and waits for the handler (which calls `answered`).
  private func assertQueueRunsWhileAnswering(
    _ history: BlockingHistory, on queue: OperationQueue,
    ask: (_ answered: @escaping () -> Void) -> Void,
    file: StaticString = #filePath, line: UInt = #line
  ) {
    let handlerRan = DispatchSemaphore(value: 0)
    ask { handlerRan.signal() }
    XCTAssertEqual(
      history.asked.wait(timeout: .now() + 10), .success, "the history is asked", file: file,
      line: line)
    let markerRan = DispatchSemaphore(value: 0)
    queue.addOperation { markerRan.signal() }
    XCTAssertEqual(
      markerRan.wait(timeout: .now() + 10), .success,
      "the queue runs other work while the history answers", file: file, line: line)
    history.answer.signal()
    XCTAssertEqual(
      handlerRan.wait(timeout: .now() + 10), .success, "the handler runs", file: file, line: line)
  }

  func testActivityQueryDoesNotHoldTheCallersQueue() {
    let history = BlockingHistory()
    let manager = CMMotionActivityManager(backend: history)
    let queue = makeSerialQueue()
    let answer = Locked<(onQueue: Bool, walking: [Bool]?)>((false, nil))
    assertQueueRunsWhileAnswering(history, on: queue) { answered in
      manager.queryActivityStarting(
        from: HistoryFixture.anchor, to: HistoryFixture.date(10), to: queue
      ) { activities, _ in
        answer.withLock { $0 = (OperationQueue.current === queue, activities?.map(\.walking)) }
        answered()
      }
    }
    XCTAssertEqual(answer.withLock { $0.onQueue }, true, "the handler runs on the caller's queue")
    XCTAssertEqual(answer.withLock { $0.walking }, [true])
  }

  func testStepCountQueryDoesNotHoldTheCallersQueue() {
    let history = BlockingHistory()
    let counter = CMStepCounter(backend: history)
    let queue = makeSerialQueue()
    let answer = Locked<(onQueue: Bool, steps: Int, error: Bool)>((false, -1, true))
    assertQueueRunsWhileAnswering(history, on: queue) { answered in
      counter.queryStepCountStarting(
        from: HistoryFixture.anchor, to: HistoryFixture.date(10), to: queue
      ) { steps, error in
        answer.withLock { $0 = (OperationQueue.current === queue, steps, error != nil) }
        answered()
      }
    }
    XCTAssertEqual(answer.withLock { $0.onQueue }, true, "the handler runs on the caller's queue")
    XCTAssertEqual(answer.withLock { $0.steps }, BlockingHistory.steps)
    XCTAssertEqual(answer.withLock { $0.error }, false)
  }

  /// The pedometer's handler queue also carries its live updates and events: a query must not
  /// hold them back, and its own handler still runs there.
  func testPedometerQueryDoesNotHoldTheHandlerQueue() {
    let history = BlockingHistory()
    let pedometer = CMPedometer(backend: history)
    let answer = Locked<(onQueue: Bool, steps: Int?)>((false, nil))
    assertQueueRunsWhileAnswering(history, on: pedometer.handlerQueue) { answered in
      pedometer.queryPedometerData(from: HistoryFixture.anchor, to: HistoryFixture.date(10)) {
        data, _ in
        answer.withLock {
          $0 = (OperationQueue.current === pedometer.handlerQueue, data?.numberOfSteps.intValue)
        }
        answered()
      }
    }
    XCTAssertEqual(
      answer.withLock { $0.onQueue }, true, "the handler runs on the pedometer's queue")
    XCTAssertEqual(answer.withLock { $0.steps }, BlockingHistory.steps)
  }
}

/// A history whose step and activity queries wait until the test lets them answer, as a daemon
/// that is slow to answer (or still being connected to) makes them wait.
private final class BlockingHistory: StepsAndActivityOnlyHistory, @unchecked Sendable {
  // @unchecked: only the two semaphores, which are thread-safe, and constants.
  /// Signalled when a query starts waiting.
  let asked = DispatchSemaphore(value: 0)
  /// Signalled by the test to let one waiting query answer.
  let answer = DispatchSemaphore(value: 0)
  static let steps = 42

  var name: String { "blocking" }
  var availableSensors: SensorSet { [.accelerometer] }
  var countsFloors: Bool { false }
  var currentActivity: ActivityRecord? { nil }

  func pedometerSummary(from start: Date, to end: Date) -> PedometerSummary {
    waitForTheTest()
    return PedometerSummary(startDate: start, endDate: end, numberOfSteps: Self.steps)
  }
  func activities(from start: Date, to end: Date) -> [ActivityRecord] {
    waitForTheTest()
    return [
      ActivityRecord(
        estimate: ActivityEstimate(walking: true, confidence: .high, startTime: 0), date: start,
        timestamp: 0)
    ]
  }
  func subscribe(
    _ handler: @escaping @Sendable (MotionHistoryEvent) -> Void
  ) -> SourceSubscription {
    SourceSubscription {}
  }

  /// Waits for the test's go-ahead; a bound (far beyond the test's own) keeps a failed test from
  /// leaving a thread blocked for ever.
  private func waitForTheTest() {
    asked.signal()
    _ = answer.wait(timeout: .now() + 60)
  }
}
