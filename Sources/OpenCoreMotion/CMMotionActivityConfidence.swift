// SPDX-License-Identifier: Apache-2.0

/// How sure the activity classifier is of a ``CMMotionActivity``.
public enum CMMotionActivityConfidence: Int, Sendable {
  /// Low confidence.
  case low = 0
  /// Good confidence.
  case medium = 1
  /// High confidence.
  case high = 2
}
