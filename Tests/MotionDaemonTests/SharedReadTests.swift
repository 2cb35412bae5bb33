// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import Testing

@testable import MotionDaemon

/// The dashboard's history panel reads the daemon's store, which blocks; every open page polls
/// it. Pages that ask while a read runs share that read, so a slow store cannot make reads pile
/// up, and the reads run on a queue of their own, not on Swift concurrency's shared threads.
@Suite struct SharedReadTests {
  @Test func callersThatArriveDuringAReadShareIt() async throws {
    let reader = SharedRead<Int>(label: "test")
    let reads = Locked(0)
    let gate = NSCondition()
    nonisolated(unsafe) var isOpen = false
    let body: @Sendable () throws -> Int = {
      let number = reads.withLock { count -> Int in
        count += 1
        return count
      }
      gate.withLock { while !isOpen { gate.wait() } }
      return number * 100
    }
    let callers = 5
    let results = Locked<[Int]>([])
    let tasks = (0..<callers).map { _ in
      Task {
        let value = try await reader.read(body)
        results.withLock { $0.append(value) }
      }
    }
    // Every caller is waiting on the one read, which is held at the gate. (The read runs on its
    // queue some time after the first caller started it: on a loaded machine, after the others
    // have joined.)
    let deadline = Date(timeIntervalSinceNow: 60)
    while reader.waitingCount < callers || reads.withLock({ $0 }) < 1, Date() < deadline {
      try await Task.sleep(for: .milliseconds(10))
    }
    #expect(reader.waitingCount == callers)
    #expect(reads.withLock { $0 } == 1)
    gate.withLock {
      isOpen = true
      gate.broadcast()
    }
    for task in tasks { try await task.value }
    #expect(results.withLock { $0 } == Array(repeating: 100, count: callers))
    #expect(reads.withLock { $0 } == 1)
    // The next caller starts a read of its own.
    #expect(try await reader.read(body) == 200)
  }

  @Test func aFailedReadFailsEveryCallerThatSharedIt() async throws {
    struct Unreadable: Error {}
    let reader = SharedRead<Int>(label: "test")
    await #expect(throws: Unreadable.self) { try await reader.read { throw Unreadable() } }
    #expect(try await reader.read { 7 } == 7)
  }
}
