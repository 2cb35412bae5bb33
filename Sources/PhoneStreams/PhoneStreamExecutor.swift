// SPDX-License-Identifier: Apache-2.0

import Dispatch

/// Runs one phone stream's tasks on a serial dispatch queue of their own, outside Swift
/// concurrency's shared pool.
///
/// Starting and stopping a phone stream is synchronous (``LiveSourceHub`` is called from
/// `CMMotionManager.start…Updates`): the caller waits, bounded, for the server to listen or the
/// worker to end. When the caller is itself a task, it holds one of the pool's threads while it
/// waits; on a one-processor machine that is the only one, so a worker on the pool could not run
/// until the wait had timed out. On this executor the worker's task and its child tasks (task
/// groups, `async let`; the server's per-connection tasks are such children) run without a pool
/// thread, and their pauses wake on a dispatch timer (``phoneStreamPause(_:)``; a `Task.sleep`
/// wake-up is a job for the pool). The queue's thread comes from Dispatch's own overcommitting
/// threads.
///
/// Unstructured tasks do not inherit the preference. Hummingbird's server starts one for its
/// graceful shutdown, and ServiceLifecycle's cancellation of a Hummingbird application's date
/// cache resumes from one, so with every pool thread busy neither ends: the Sensor Logger
/// receiver runs its server without an application and stops it with a `ServerDrain` (MotionServerSupport).
///
/// The work is light (a few requests or messages a second, decoding, handing events to the
/// hub), so one serial queue per stream is enough.
final class PhoneStreamExecutor: TaskExecutor {
  private let queue: DispatchQueue

  /// An executor on a new serial queue labelled after the stream.
  init(label: String) {
    queue = DispatchQueue(label: "OpenCoreMotion.\(label).tasks")
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    queue.async { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
  }
}
