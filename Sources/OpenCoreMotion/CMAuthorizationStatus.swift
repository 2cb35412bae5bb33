// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Whether the app may use the motion and fitness services (pedometer, motion activity, altimeter,
/// sensor recorder), as `authorizationStatus()` reports it.
///
/// Linux has no per-app privacy prompt, so OpenCoreMotion reports ``authorized`` unless the
/// `COREMOTION_AUTHORIZATION` environment variable says otherwise (`notDetermined`, `restricted`,
/// `denied` or `authorized`), which lets apps test their handling of a refusal. While the status is
/// not ``authorized``, starts and queries deliver `CMErrorMotionActivityNotAuthorized`.
public enum CMAuthorizationStatus: Int, Sendable {
  /// The user has not been asked yet.
  case notDetermined = 0
  /// Access is restricted (for example by a policy).
  case restricted = 1
  /// The user refused access.
  case denied = 2
  /// Access is granted.
  case authorized = 3

  /// The environment variable that overrides the status.
  static let environmentVariable = "COREMOTION_AUTHORIZATION"

  /// The status `environment` asks for: ``authorized`` when the variable is unset or not one of the
  /// four case names (case ignored).
  static func fromEnvironment(_ environment: [String: String]) -> CMAuthorizationStatus {
    switch environment[environmentVariable]?.lowercased() {
    case "notdetermined": return .notDetermined
    case "restricted": return .restricted
    case "denied": return .denied
    default: return .authorized
    }
  }

  /// The process's status, read once.
  static let current: CMAuthorizationStatus = fromEnvironment(ProcessInfo.processInfo.environment)
}

