// SPDX-License-Identifier: Apache-2.0

import Foundation

// Addition; not part of Apple's Core Motion.
//
// Async sequences over the pedometer, activity and altimeter updates, built on the same internal
// channels as the handler API (same events, same conversions). Each call makes an independent
// subscription that does not disturb the handler API. The sequence ends when the source has no
// more samples, when it fails, or at once when the service is not available or not authorized;
// its `error` then says why (the `NSError` in `CMErrorDomain` a handler would have received).
// Stopping iteration (task cancelled, sequence dropped) cancels the subscription.

extension CMMotionActivityManager {
  /// The current activity, then each change, as ``startActivityUpdates(to:withHandler:)``
  /// delivers them. An addition.
  public func activityUpdates() -> MotionUpdateSequence<CMMotionActivity> {
    makeUpdateSequence { connect($0, sink: $1) }
  }
}
