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

extension CMAltimeter {
  /// Relative-altitude events, as ``startRelativeAltitudeUpdates(to:withHandler:)`` delivers them.
  /// An addition; without a barometer the sequence ends at once with `CMErrorNotAvailable`.
  public func relativeAltitudeUpdates() -> MotionUpdateSequence<CMAltitudeData> {
    makeUpdateSequence { channel, sink in
      if !connectRelative(channel, sink: sink) {
        channel.refuse(
          NSError(CMErrorNotAvailable, description: "\(backend.name) has no barometer"), sink: sink)
      }
    }
  }

  /// Absolute-altitude events, as ``startAbsoluteAltitudeUpdates(to:withHandler:)`` delivers them.
  /// An addition.
  public func absoluteAltitudeUpdates() -> MotionUpdateSequence<CMAbsoluteAltitudeData> {
    makeUpdateSequence { connectAbsolute($0, reference: AltitudeReference.current(), sink: $1) }
  }
}
