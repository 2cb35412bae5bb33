// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionConcurrency
import Testing

@testable import MotionDaemon

/// The history's close lock lets a waiting writer in before new readers: a privacy denial must not
/// wait for ever behind queries that keep arriving. (With glibc's default kind, three readers
/// holding the read side 100 ms each with 1 ms between kept a writer out for 5 s in a review's
/// check; here they overlap, so the read side is never free.)
@Suite struct ReadersWriterLockTests {
  @Test func aWaitingWriterIsNotHeldOffByReadersThatKeepComing() {
    guard ReadersWriterLock.writerPreferenceIsSound else {
      print("skipped: this glibc (before 2.29) has no sound writer-preferring lock")
      return
    }
    let lock = ReadersWriterLock()
    let stop = Locked(false)
    let readersDone = DispatchSemaphore(value: 0)
    // Threads of their own: a dispatch pool with its workers asleep in the lock may not start
    // the writer's work at all.
    for offset in 0..<3 {
      Thread {
        // Staggered, so that another reader always holds the read side.
        Thread.sleep(forTimeInterval: 0.01 * Double(offset))
        while !stop.withLock({ $0 }) {
          lock.withReadLock { Thread.sleep(forTimeInterval: 0.03) }
          Thread.sleep(forTimeInterval: 0.001)
        }
        readersDone.signal()
      }.start()
    }
    Thread.sleep(forTimeInterval: 0.1)
    let started = Date()
    let written = DispatchSemaphore(value: 0)
    Thread {
      lock.withWriteLock {}
      written.signal()
    }.start()
    let gotIn = written.wait(timeout: .now() + 5) == .success
    let waited = Date().timeIntervalSince(started)
    stop.withLock { $0 = true }
    for _ in 0..<3 { readersDone.wait() }
    if !gotIn { _ = written.wait(timeout: .now() + 5) }
    #expect(gotIn, "the writer waited more than 5 s")
    // It waits for the readers inside (30 ms each), not for the ones that come after.
    #expect(waited < 1, "the writer waited \(waited) s")
  }
}
