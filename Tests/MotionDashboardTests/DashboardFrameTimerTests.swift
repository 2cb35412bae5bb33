// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation
import NIOCore
import NIOPosix
import SourceComposition
import XCTest

@testable import MotionDashboard

/// The frame timer's threading: frames are encoded on an event loop outside the hub's actor, and
/// a connection's writer runs on its event loop (docs/Dashboard.md, "Where the server's CPU
/// went").
final class DashboardFrameTimerTests: XCTestCase {
  func testATaskThatPrefersTheExecutorRunsOnTheEventLoopAlsoAfterResuming() async throws {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let eventLoop = group.next()
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    let observed = await Task(executorPreference: EventLoopTaskExecutor(eventLoop)) {
      var onLoop = [eventLoop.inEventLoop]
      // Resumed by a value yielded from another thread, as a writer is by the broadcast.
      DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { continuation.yield(1) }
      for await _ in stream {
        onLoop.append(eventLoop.inEventLoop)
        break
      }
      await Task.yield()
      onLoop.append(eventLoop.inEventLoop)
      return onLoop
    }.value
    XCTAssertEqual(observed, [true, true, true])
    try await group.shutdownGracefully()
  }

  /// Pages connect and leave while the timer broadcasts from another thread: each page gets its
  /// greeting before any frame, and frames are numbered in order.
  func testPagesConnectingDuringBroadcastsGetTheirGreetingFirst() async throws {
    let simulated = try SimulatedDashboardHub(speed: 4, rate: 50)
    defer { simulated.removeRecordings() }
    let hub = simulated.hub

    // The timer's stand-in: 300 broadcasts from a thread of their own, about 1 ms apart.
    let timerDone = expectation(description: "broadcasts finished")
    Thread.detachNewThread {
      for _ in 0..<300 {
        hub.broadcast()
        usleep(1000)
      }
      timerDone.fulfill()
    }
    // Each page reads its queue as a connection's writer does, from the moment it connects.
    var readers: [Task<[String], Never>] = []
    for index in 0..<20 {
      let (id, queue) = await hub.connect()
      readers.append(
        Task {
          var messages: [String] = []
          for await frame in queue.frames { messages.append(frame.text ?? "") }
          return messages
        })
      try await Task.sleep(for: .milliseconds(10))
      if index % 4 == 3 { await hub.disconnect(id) }
    }
    await fulfillment(of: [timerDone], timeout: 30)
    await hub.shutDown()

    var framesSeen = 0
    for (index, reader) in readers.enumerated() {
      let messages = await reader.value
      XCTAssertTrue(
        messages.first?.contains("\"type\":\"hello\"") == true,
        "page \(index): first message \(messages.first?.prefix(40) ?? "none")")
      let sequences = messages.dropFirst().compactMap(Self.sequence(of:))
      XCTAssertEqual(sequences, sequences.sorted(), "page \(index): frames out of order")
      XCTAssertEqual(Set(sequences).count, sequences.count, "page \(index): a frame twice")
      framesSeen += sequences.count
    }
    // Some pages were connected for most of the 300 broadcasts (a frame at least every 15).
    XCTAssertGreaterThan(framesSeen, 20)
  }

  /// The sequence number (`seq`) of a data frame.
  private static func sequence(of frame: String) -> Int? {
    guard frame.contains("\"type\":\"data\""),
      let range = frame.range(of: "\"seq\":")
    else { return nil }
    return Int(frame[range.upperBound...].prefix { $0.isNumber })
  }
}
