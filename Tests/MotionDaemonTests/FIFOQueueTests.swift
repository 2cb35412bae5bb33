// SPDX-License-Identifier: Apache-2.0

import MotionSensors
import Testing

/// The queue behind each client's replies and stream messages.
@Suite struct FIFOQueueTests {
  final class Payload {}

  /// A reply queue that never drains (a long answer, produced as the client reads it) must not
  /// keep the chunks already sent: each is released when it is popped, not at the next compaction.
  @Test func aPoppedElementIsReleasedWhileTheQueueStillHoldsOthers() {
    var queue = FIFOQueue<Payload>()
    weak var released: Payload?
    do {
      let first = Payload()
      released = first
      queue.append(first)
      queue.append(Payload())
      #expect(queue.popFirst() === first)
    }
    #expect(queue.count == 1)
    #expect(released == nil, "the popped element is still held by the queue")
  }

  @Test func elementsComeOutInOrderAcrossCompactions() {
    var queue = FIFOQueue<Int>()
    var next = 0
    var expected = 0
    // Two in, one out: the head passes 1024 and the storage is compacted on the way.
    for _ in 0..<5_000 {
      queue.append(next)
      queue.append(next + 1)
      next += 2
      #expect(queue.popFirst() == expected)
      expected += 1
    }
    #expect(queue.count == 5_000)
    while let element = queue.popFirst() {
      #expect(element == expected)
      expected += 1
    }
    #expect(expected == next)
    #expect(queue.isEmpty)
  }
}
