// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import OpenCoreMotion

/// How a command that streams from a source ends, shared by `demo` and `monitor`: when the source
/// finishes or fails, when a handler reports an error, or after a duration.
/// `@unchecked Sendable`: `endWatcher` is set by `watchForEnd()` and cancelled by `wait(duration:)`, both on
/// the command's thread; the source's handler only touches `state` (`Locked`) and the semaphore.
final class SourceSession: @unchecked Sendable {
  private let done = DispatchSemaphore(value: 0)
  private let state = Locked<String?>(nil)
  private let source: any SensorSource
  private var endWatcher: SourceSubscription?

  init(source: any SensorSource) {
    self.source = source
  }

  /// Starts watching the source for its end or a failure.
  func watchForEnd() {
    let done = self.done
    let state = self.state
    endWatcher = source.subscribe(requestedSampleRate: 1) { event in
      switch event {
      case .finished: done.signal()
      case .failure(let failure):
        state.withLock { $0 = $0 ?? failure.message }
        done.signal()
      case .sample: break
      }
    }
  }

  /// The first failure seen, if any.
  var failure: String? { state.withLock { $0 } }

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
    if nsError.domain == CMErrorDomain, nsError.code == Int(CMErrorDeviceRequiresMovement.rawValue) {
      print("note: \(nsError.localizedDescription)")
      return ()
    }
    state.withLock { $0 = $0 ?? nsError.localizedDescription }
    done.signal()
    return ()
  }

  /// Blocks until the source ends, an error arrives, or `duration` seconds pass.
  func wait(duration: Double?) {
    _ = done.wait(timeout: duration.map { .now() + $0 } ?? .distantFuture)
    endWatcher?.cancel()
  }
}
