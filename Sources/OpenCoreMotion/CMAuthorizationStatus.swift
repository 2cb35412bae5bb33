// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Whether the app may use the motion and fitness services (pedometer, motion activity, altimeter,
/// sensor recorder), as `authorizationStatus()` reports it.
///
/// Linux has no per-app privacy prompt, so OpenCoreMotion reports ``authorized`` unless the
/// `COREMOTION_AUTHORIZATION` environment variable says otherwise (`notDetermined`, `restricted`,
/// `denied` or `authorized`), which lets apps test their handling of a refusal, or the user denied
/// motion history to the motion daemon the process reads (`motionctl privacy deny`): then it is
/// ``denied`` until `motionctl privacy allow`. While the status is not ``authorized``, starts and
/// queries deliver `CMErrorMotionActivityNotAuthorized`.
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

  /// The process's status from the environment, read once.
  static let current: CMAuthorizationStatus = fromEnvironment(ProcessInfo.processInfo.environment)

  /// The status of the services on `backend`: the environment's override, else ``denied`` when the
  /// backend's history is denied (the daemon's privacy setting), else ``authorized``.
  package static func status(for backend: any MotionHistoryBackend) -> CMAuthorizationStatus {
    guard current == .authorized else { return current }
    return backend.isHistoryAuthorized ? .authorized : .denied
  }

  /// The status the `authorizationStatus()` class methods report: that of the default backend,
  /// asked without starting to observe the sensors.
  static var processDefault: CMAuthorizationStatus {
    guard current == .authorized else { return current }
    return MotionHistoryBackends.defaultHistoryAuthorized ? .authorized : .denied
  }

  /// Why a service is refused while the status is not ``authorized``.
  var refusalReason: String {
    switch self {
    case .denied where CMAuthorizationStatus.current == .authorized:
      return "the user denied motion history (motionctl privacy allow permits it)"
    default:
      return "\(self) (\(CMAuthorizationStatus.environmentVariable))"
    }
  }
}
