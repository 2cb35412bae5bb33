// SPDX-License-Identifier: Apache-2.0

/// Carries one of Apple's (non-`Sendable`) handler closures into an operation on its queue.
///
/// @unchecked Sendable: the handler is only called, never mutated, and only from that one
/// operation; whether the closure itself is safe to call off the caller's thread is the caller's
/// contract, as with Apple's API (handlers run on the queue the app chose or on the service's own).
struct HandlerBox<Handler>: @unchecked Sendable {
  let handler: Handler
  init(_ handler: Handler) { self.handler = handler }
}
