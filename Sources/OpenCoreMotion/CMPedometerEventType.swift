// SPDX-License-Identifier: Apache-2.0

/// The kind of change a ``CMPedometerEvent`` reports.
public enum CMPedometerEventType: Int, Sendable {
  /// The person stopped walking or running (about 2 s without a step).
  case pause = 0
  /// The person started walking or running again.
  case resume = 1
}
