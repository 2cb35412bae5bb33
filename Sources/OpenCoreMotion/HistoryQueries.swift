// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Where one API object (``CMPedometer``, ``CMStepCounter``, ``CMMotionActivityManager``) answers
/// its history queries: one at a time, in the order they were made, on a queue of the object's own.
///
/// Only the handler goes on the queue it runs on (the caller's, or the pedometer's serial handler
/// queue): the daemon's answer can take seconds (connecting, then up to its reply timeout), and
/// asking there would hold that queue (perhaps the main queue, or the pedometer's live updates and
/// events) until it came, where Apple's query returns at once with only the handler queued.
///
/// A query made before the object is deallocated is still answered: the work queued holds the
/// queue, the history and the handler, not the object.
struct HistoryQueries: Sendable {
  private let queue: DispatchQueue

  init(label: String) {
    queue = DispatchQueue(label: label)
  }

  /// Answers a query of `start ... end` and calls `handler` with the answer on `handlerQueue`:
  /// `refusal` (why the object cannot serve, decided when the query is made) if any, else
  /// `CMErrorInvalidParameter` for a date that is not finite (NaN or infinity) or a start after
  /// the end, else what `ask` answers for the window.
  func answer<Answer: Sendable>(
    from start: Date, to end: Date, refusal: NSError?, on handlerQueue: OperationQueue,
    ask: @escaping @Sendable (_ start: Date, _ end: Date) -> Result<Answer, NSError>,
    handler: @escaping (Result<Answer, NSError>) -> Void
  ) {
    let box = HandlerBox(handler)
    queue.async {
      let answer: Result<Answer, NSError>
      if let refusal {
        answer = .failure(refusal)
      } else if !start.timeIntervalSinceReferenceDate.isFinite
        || !end.timeIntervalSinceReferenceDate.isFinite
      {
        // A NaN date passes the order check below (`start > end` is false with it) and would reach
        // the history, which answers it as an empty or an unbounded window, without an error.
        answer = .failure(
          NSError(CMErrorInvalidParameter, description: "the start or end date is not finite"))
      } else if start > end {
        answer = .failure(
          NSError(CMErrorInvalidParameter, description: "the start date is after the end date"))
      } else {
        answer = ask(start, end)
      }
      handlerQueue.addOperation { box.handler(answer) }
    }
  }
}
