// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Where the daemon's socket and history live, from the XDG base directories.
///
/// - Socket: `$XDG_RUNTIME_DIR/opencoremotion/motiond.sock` (the runtime directory is per user and
///   0700 by specification); without `XDG_RUNTIME_DIR`, `/tmp/opencoremotion-UID/motiond.sock`.
/// - History: `$XDG_STATE_HOME/opencoremotion/history.sqlite`, default `~/.local/state/…`.
package enum DaemonPaths {
  /// The environment variable that overrides the socket path (tests, several daemons).
  package static let socketVariable = "MOTIOND_SOCKET"

  package static func socketPath(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> String {
    if let explicit = environment[socketVariable], !explicit.isEmpty { return explicit }
    return runtimeDirectory(environment: environment) + "/motiond.sock"
  }

  package static func runtimeDirectory(
    environment: [String: String] = ProcessInfo.processInfo.environment
  )
    -> String
  {
    if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
      return runtime + "/opencoremotion"
    }
    return "/tmp/opencoremotion-\(getuid())"
  }

  package static func stateDirectory(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> String {
    if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
      return state + "/opencoremotion"
    }
    let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()
    return home + "/.local/state/opencoremotion"
  }

  /// Creates `path` (and parents) if needed and sets it to mode 0700. A `path` that exists must
  /// be a directory of this user's, not a symbolic link: under `/tmp` another user can create
  /// the folder first (and listen in it), and the error says so instead of a bare "permission
  /// denied".
  package static func makePrivateDirectory(_ path: String) throws {
    try FileManager.default.createDirectory(
      atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    var status = stat()
    guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
      throw CocoaError(
        .fileWriteNoPermission,
        userInfo: [
          NSFilePathErrorKey: path,
          NSLocalizedDescriptionKey: "\(path) is not a directory (a symbolic link?): not using it",
        ])
    }
    guard status.st_uid == getuid() else {
      throw CocoaError(
        .fileWriteNoPermission,
        userInfo: [
          NSFilePathErrorKey: path,
          NSLocalizedDescriptionKey:
            "\(path) belongs to user \(status.st_uid), not to this user: another user may have created it to listen in; set XDG_RUNTIME_DIR or MOTIOND_SOCKET",
        ])
    }
    guard chmod(path, 0o700) == 0 else {
      throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
    }
  }
}
