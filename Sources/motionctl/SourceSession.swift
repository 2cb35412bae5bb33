// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import OpenCoreMotion

#if os(Linux)
  import LinuxIIO
#endif

/// How a command that streams from a source ends, shared by `demo` and `monitor`: when the source
/// finishes or fails fatally, when a handler reports an error, at SIGINT or SIGTERM, or after a
/// duration. Advisory failures (one bad message from a phone, late samples dropped) are printed to
/// standard error and counted; the session goes on. `@unchecked Sendable`: `endWatcher` is set by
/// `watchForEnd()` and cancelled by `wait(duration:)`, both on the command's thread; the source's
/// handler only touches `state` (`Locked`) and the semaphore.
final class SourceSession: @unchecked Sendable {
  private let done = DispatchSemaphore(value: 0)
  private let state = Locked<String?>(nil)
  private let advisory = Locked(0)
  private let finished = Locked(false)
  private let source: any SensorSource
  private var endWatcher: SourceSubscription?

  init(source: any SensorSource) {
    self.source = source
  }

  /// Starts watching the source for its end or a failure.
  func watchForEnd() {
    let done = self.done
    let state = self.state
    let advisory = self.advisory
    let finished = self.finished
    endWatcher = source.subscribe(requestedSampleRate: 1) { event in
      switch event {
      case .finished:
        finished.withLock { $0 = true }
        done.signal()
      case .failure(let failure) where !failure.isFatal:
        advisory.withLock { $0 += 1 }
        printToStandardError("warning: \(failure.message)")
      case .failure(let failure):
        state.withLock { $0 = $0 ?? failure.message }
        done.signal()
      case .sample: break
      }
    }
  }

  /// The first failure seen, if any.
  var failure: String? { state.withLock { $0 } }

  /// Whether the source came to its end (rather than the session being stopped by a signal or
  /// its duration): only then can a command judge what the whole source gave.
  var sourceFinished: Bool { finished.withLock { $0 } }

  /// Advisory failures seen (reported, not ending the session).
  var advisoryFailureCount: Int { advisory.withLock { $0 } }

  /// Prints a line (handlers run on one serial queue, so lines never interleave).
  func print(_ line: String) {
    Swift.print(line)
    // Every output stream: naming the C global `stdout` is not concurrency-safe in Swift 6.
    fflush(nil)
  }

  /// Records `error` (if any) and ends the session; `nil` when there was no error.
  func emit(_ error: (any Error)?) -> Void? {
    guard let error else { return nil }
    let nsError = error as NSError
    if nsError.domain == CMErrorDomain, nsError.code == Int(CMErrorDeviceRequiresMovement.rawValue)
    {
      print("note: \(nsError.localizedDescription)")
      return ()
    }
    // Already reported and counted by the end watcher.
    if nsError.isAdvisorySourceFailure { return () }
    state.withLock { $0 = $0 ?? nsError.localizedDescription }
    done.signal()
    return ()
  }

  /// Blocks until the source ends, an error arrives, SIGINT or SIGTERM, or `duration` seconds pass.
  func wait(duration: Double?) {
    let done = self.done
    let signals = TerminationSignals { done.signal() }
    _ = done.wait(timeout: duration.map { .now() + $0 } ?? .distantFuture)
    endWatcher?.cancel()
    // The handlers stay until the caller has stopped its updates (a second signal still ends at
    // once).
    self.signals = signals
  }

  /// Restores the default signal actions once the sources are stopped.
  func end() {
    waitForDevicesToBeRestored()
    signals?.cancel()
    signals = nil
  }

  private var signals: TerminationSignals?
}

/// Waits (up to 2 s) for IIO reader threads to disable their buffers and exit, so that the next run
/// does not find the device busy. Call after every update has been stopped.
func waitForDevicesToBeRestored() {
  #if os(Linux)
    if !IIOSensorSource.waitForReadersToStop(timeout: 2) {
      printToStandardError(
        "warning: an IIO reader did not stop within 2 s; the device may still be busy")
    }
  #endif
}
