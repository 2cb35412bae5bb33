// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// Runs a task's jobs on one SwiftNIO event loop.
///
/// A connection's writer spends its life handing frames to its channel, whose writes happen on
/// the channel's event loop. On the global executor every frame costs two thread hand-offs: a
/// pool thread wakes to take the frame from the queue, then the event loop wakes to write it.
/// With this executor preferred (`withTaskExecutorPreference`), the writer runs on the event loop
/// itself, so the frame goes from the queue into the channel without either hand-off
/// (docs/Dashboard.md, "Where the server's CPU went").
///
/// Only for code that never blocks: a blocked job would stall every connection on that loop.
package final class EventLoopTaskExecutor: TaskExecutor {
  package let eventLoop: any EventLoop

  package init(_ eventLoop: any EventLoop) {
    self.eventLoop = eventLoop
  }

  package func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    eventLoop.execute {
      job.runSynchronously(on: self.asUnownedTaskExecutor())
    }
  }
}
