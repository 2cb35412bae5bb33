// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import SourceComposition
import Testing

@testable import OpenCoreMotion

/// The deprecated `CMStepCounter` on the simulator: counts from zero at the start, a call every
/// `stepCounts` steps, queries that agree with `CMPedometer`, stop, errors and availability.
@Suite struct CMStepCounterTests {
  /// A walk's history whose source time 0 is `origin`, with its clock.
  private func walkHistory(
    origin: Date, scenario: Scenario = HistoryFixture.walkScenario()
  ) -> (history: InProcessMotionHistory, clock: VirtualClock) {
    let clock = VirtualClock()
    let history = InProcessMotionHistory(
      source: HistoryFixture.player(scenario, clock: clock),
      timeline: MotionTimeline(referenceDate: origin, referenceTimestamp: 0))
    return (history, clock)
  }

  private func serialQueue() -> OperationQueue {
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    return queue
  }

  private func query(
    _ counter: CMStepCounter, _ start: Date, _ end: Date
  ) -> (steps: Int, error: (any Error)?) {
    let result = Locked<(Int, (any Error)?)>((-1, nil))
    let queue = serialQueue()
    let done = DispatchSemaphore(value: 0)
    counter.queryStepCountStarting(from: start, to: end, to: queue) { steps, error in
      result.withLock { $0 = (steps, error) }
      done.signal()
    }
    #expect(done.wait(timeout: .now() + 30) == .success, "the query answers")
    return result.withLock { $0 }
  }

  /// Runs the whole walk with live counts every `stepCounts` steps; returns (total, date) pairs
  /// and the whole walk's count from a query.
  private func walk(updateOn stepCounts: Int) -> (updates: [(Int, Date)], queried: Int) {
    // Source time 0 is now, so the walk's steps come after the start of counting.
    let (history, clock) = walkHistory(origin: Date())
    let counter = CMStepCounter(backend: history)
    let queue = serialQueue()
    let updates = Collector<(Int, Date)>()
    let errors = Collector<String>()
    counter.startStepCountingUpdates(to: queue, updateOn: stepCounts) { steps, date, error in
      if let error { errors.append("\(error)") }
      updates.append((steps, date))
    }
    clock.advance(by: HistoryFixture.walkScenario().segmentsDuration + 1)
    drain(queue)
    counter.stopStepCountingUpdates()
    #expect(errors.all.isEmpty)
    let queried = query(counter, .distantPast, .distantFuture).steps
    return (updates.all, queried)
  }

  @Test func liveCountsStartAtZeroAndComeEveryStepCountsSteps() throws {
    let (updates, queried) = walk(updateOn: 5)
    #expect(updates.count > 3)
    // 20 s at 1.8 steps/s = 36 steps; ±25 % (the detector's accuracy has its own tests).
    #expect(abs(queried - 36) <= 9, "\(queried) steps")
    let first = try #require(updates.first)
    #expect(first.0 >= 5, "the first call waits for 5 steps")
    for (a, b) in zip(updates, updates.dropFirst()) {
      #expect(a.1 <= b.1, "dates do not go back")
      #expect(b.0 > a.0, "totals only grow")
    }
    // Every call but the last (at the pause, with what is left) is 5 steps on.
    for (a, b) in zip(updates, updates.dropFirst()).dropLast() {
      #expect(b.0 - a.0 == 5)
    }
    #expect(updates.dropLast().allSatisfy { $0.0 % 5 == 0 })
    // The pause reports the steps not yet reported: the last total is the whole walk's.
    #expect(updates.last?.0 == queried)
  }

  @Test func stepCountsBelowOneCountAsOne() {
    let (updates, queried) = walk(updateOn: 0)
    #expect(updates.last?.0 == queried)
    // One call per step.
    #expect(updates.map(\.0) == Array(1...max(queried, 1)))
  }

  @Test func queriesAgreeWithThePedometer() {
    let origin = HistoryFixture.anchor
    let (history, clock) = walkHistory(origin: origin)
    let counter = CMStepCounter(backend: history)
    clock.advance(by: HistoryFixture.walkScenario().segmentsDuration + 1)
    for (start, end) in [(0.0, 60.0), (0, 10), (10, 60), (-100, -50)] {
      let from = HistoryFixture.date(start)
      let to = HistoryFixture.date(end)
      let (steps, error) = query(counter, from, to)
      #expect(error == nil)
      #expect(steps == history.pedometerSummary(from: from, to: to).numberOfSteps)
    }
    #expect(query(counter, HistoryFixture.date(0), HistoryFixture.date(60)).steps > 20)
    #expect(query(counter, HistoryFixture.date(-100), HistoryFixture.date(-50)).steps == 0)
  }

  @Test func queryWithReversedRangeIsAnInvalidParameter() {
    let (history, _) = walkHistory(origin: HistoryFixture.anchor)
    let counter = CMStepCounter(backend: history)
    let (steps, error) = query(counter, HistoryFixture.date(10), HistoryFixture.date(0))
    #expect(steps == 0)
    #expect(coreMotionCode(error) == Int(CMErrorInvalidParameter.rawValue))
  }

  /// A NaN date passed the reversed-range check (`start > end` is false with it) and the
  /// query answered 0 steps without an error; infinite dates are refused as well.
  @Test func queryWithANonFiniteDateIsAnInvalidParameter() {
    let (history, clock) = walkHistory(origin: HistoryFixture.anchor)
    let counter = CMStepCounter(backend: history)
    clock.advance(by: HistoryFixture.walkScenario().segmentsDuration + 1)
    let nan = Date(timeIntervalSinceReferenceDate: .nan)
    let infinity = Date(timeIntervalSinceReferenceDate: .infinity)
    for (start, end) in [
      (nan, HistoryFixture.date(60)), (HistoryFixture.anchor, nan),
      (HistoryFixture.anchor, infinity),
      (Date(timeIntervalSinceReferenceDate: -.infinity), HistoryFixture.date(60)),
    ] {
      let (steps, error) = query(counter, start, end)
      #expect(steps == 0)
      #expect(coreMotionCode(error) == Int(CMErrorInvalidParameter.rawValue))
    }
    #expect(query(counter, .distantPast, .distantFuture).steps > 20)
  }

  @Test func noHandlerRunsAfterStopAndASecondStartReplacesTheFirst() {
    let (history, clock) = walkHistory(origin: Date())
    let counter = CMStepCounter(backend: history)
    let queue = serialQueue()
    let first = Collector<Int>()
    let second = Collector<Int>()
    counter.startStepCountingUpdates(to: queue, updateOn: 1) { steps, _, _ in first.append(steps) }
    clock.advance(by: 8)
    drain(queue)
    #expect(first.count > 0, "steps in the first 8 s")
    // The second start replaces the handler and counts from zero again.
    counter.startStepCountingUpdates(to: queue, updateOn: 1) { steps, _, _ in second.append(steps) }
    let firstAtReplacement = first.count
    clock.advance(by: 4)
    drain(queue)
    #expect(first.count == firstAtReplacement)
    #expect(second.count > 0)
    #expect((second.all.first ?? .max) < (first.all.last ?? 0), "counting restarted")
    // Stop while operations may still be queued: none runs after the stop returns.
    counter.stopStepCountingUpdates()
    let atStop = second.count
    clock.advance(by: 30)
    drain(queue)
    #expect(second.count == atStop)
  }

  @Test func withoutAnAccelerometerEverythingReportsNotAvailable() {
    let clock = VirtualClock()
    let counter = CMStepCounter(
      backend: HistoryFixture.history(HistoryFixture.gyroscopeOnly(clock: clock)))
    let (steps, error) = query(counter, HistoryFixture.anchor, HistoryFixture.date(1))
    #expect(steps == 0)
    #expect(coreMotionCode(error) == Int(CMErrorMotionActivityNotAvailable.rawValue))
    let queue = serialQueue()
    let errors = Collector<Int?>()
    counter.startStepCountingUpdates(to: queue, updateOn: 1) { steps, _, error in
      errors.append(steps == 0 ? coreMotionCode(error) : -1)
    }
    clock.advance(by: 5)
    drain(queue)
    counter.stopStepCountingUpdates()
    #expect(errors.all == [Int(CMErrorMotionActivityNotAvailable.rawValue)])
  }

  @Test func classAvailabilityFollowsTheDefaultSource() {
    #expect(
      CMStepCounter.isStepCountingAvailable()
        == SourceFactory.defaultSource.availableSensors.contains(.accelerometer))
    #expect(CMStepCounter.isStepCountingAvailable() == CMPedometer.isStepCountingAvailable())
  }
}
