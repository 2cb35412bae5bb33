// SPDX-License-Identifier: Apache-2.0

/// Which estimator runs and how its output is compared (`motionctl evaluate --mode`).
public enum EvaluationMode: String, Sendable, Codable, CaseIterable {
  /// Real-time (causal) estimator with magnetometer; compared as is.
  case realtime9d
  /// Real-time estimator without magnetometer; the constant heading offset is removed first.
  case realtime6d
  /// Whole-recording (non-causal) estimator with magnetometer.
  case offline9d
  /// Whole-recording estimator without magnetometer; heading offset removed.
  case offline6d

  /// Whether the magnetometer is used (and heading compared as is).
  public var usesMagnetometer: Bool { self == .realtime9d || self == .offline9d }
  /// Whether the estimator sees the whole recording.
  public var isOffline: Bool { self == .offline9d || self == .offline6d }
}
