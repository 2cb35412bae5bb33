// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation
import MotionSensors

/// SIGINT and SIGTERM as a request to stop: a command that streams from a source ends its session
/// normally (sources stopped, an IIO device's buffer disabled and its reader thread joined, a
/// recording finished) instead of dying with the device left busy.
///
/// The default action is ignored while a handler is installed and restored by ``cancel()``; a
/// second signal while stopping still ends the process at once, so a stuck stop can be interrupted.
final class TerminationSignals: @unchecked Sendable {
  // `sources` is written in `init` and `cancel()` only, both on the command's thread.
  private var sources: [any DispatchSourceSignal] = []
  private let received = Locked(false)

  /// Calls `onSignal` (on a private queue) at the first SIGINT or SIGTERM.
  init(_ onSignal: @escaping @Sendable () -> Void) {
    let queue = DispatchQueue(label: "motionctl.signals")
    // The stop runs on a queue of its own: if it hangs (a source that does not stop), the signal
    // queue is still free to take the second signal.
    let stopQueue = DispatchQueue(label: "motionctl.stop")
    let received = self.received
    for number in [SIGINT, SIGTERM] {
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
      source.setEventHandler {
        let isFirst = received.withLock { seen -> Bool in
          defer { seen = true }
          return !seen
        }
        if isFirst {
          stopQueue.async { onSignal() }
        } else {
          // Second signal: the stop is taking too long; end now with the default action.
          signal(number, SIG_DFL)
          raise(number)
        }
      }
      source.resume()
      sources.append(source)
    }
  }

  /// Whether a signal arrived.
  var wasReceived: Bool { received.withLock { $0 } }

  /// Removes the handlers and restores the default actions.
  func cancel() {
    for source in sources { source.cancel() }
    sources.removeAll()
    signal(SIGINT, SIG_DFL)
    signal(SIGTERM, SIG_DFL)
  }
}
