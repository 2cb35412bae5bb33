// SPDX-License-Identifier: Apache-2.0

import MotionSensors

/// Errors of the IIO backend, with messages that say what to do.
public enum IIOError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Access to an IIO file was refused; the fix is a udev rule (see ``udevRuleHint``).
  case permissionDenied(path: String)
  /// A file or directory could not be read for another reason.
  case unreadable(path: String, reason: String)
  /// The configuration (environment or file) could not be understood.
  case invalidConfiguration(String)

  /// What to do about missing permissions, shown in messages.
  public static let udevRuleHint =
    "install the udev rule from docs/RealSensors.md (e.g. /etc/udev/rules.d/99-iio.rules: "
    + "SUBSYSTEM==\"iio\", GROUP=\"iio\", MODE=\"0660\", plus the RUN+= lines that make the "
    + "buffer attributes group-writable), add yourself to the `iio` group, then "
    + "`sudo udevadm control --reload && sudo udevadm trigger --subsystem-match=iio` and log in again"

  public var description: String {
    switch self {
    case .permissionDenied(let path):
      return "permission denied on \(path): \(Self.udevRuleHint)"
    case .unreadable(let path, let reason):
      return "cannot read \(path): \(reason)"
    case .invalidConfiguration(let message):
      return "invalid IIO configuration: \(message)"
    }
  }

  /// The matching `SourceFailure` (MotionSensors).
  public var sourceFailure: SourceFailure {
    switch self {
    case .permissionDenied: return SourceFailure(.permissionDenied, "iio: \(description)")
    case .unreadable: return SourceFailure(.other, "iio: \(description)")
    case .invalidConfiguration: return SourceFailure(.other, "iio: \(description)")
    }
  }
}
