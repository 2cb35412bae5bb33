// SPDX-License-Identifier: Apache-2.0

/// A first-in first-out queue with O(1) amortised `append` and `popFirst` (an array with a moving
/// head, compacted when half of it is consumed).
///
/// A popped slot is emptied at once: a queue that never drains (a client's reply queue while it
/// reads a long answer) must not keep every element it has handed out alive until compaction.
///
/// Used by the daemon's per-client queues and the phone streams' delivery queue.
package struct FIFOQueue<Element> {
  private var storage: [Element?] = []
  private var head = 0

  package init() {}

  package var count: Int { storage.count - head }
  package var isEmpty: Bool { head >= storage.count }

  package mutating func append(_ element: Element) {
    storage.append(element)
  }

  package mutating func popFirst() -> Element? {
    guard head < storage.count else { return nil }
    let element = storage[head].take()
    head += 1
    if head == storage.count {
      storage.removeAll(keepingCapacity: true)
      head = 0
    } else if head >= 1024, head * 2 >= storage.count {
      storage.removeFirst(head)
      head = 0
    }
    return element
  }
}

extension FIFOQueue: Sendable where Element: Sendable {}
