// SPDX-License-Identifier: Apache-2.0

import Foundation

extension MotionDaemon {
  /// The URL (with its access token) of the dashboard served by the daemon listening on
  /// `socketPath`, as the daemon wrote it next to its socket; `nil` when that daemon serves none.
  ///
  /// The file outlives a daemon killed with SIGKILL, so callers check that a daemon answers on the
  /// socket too.
  public static func dashboardURL(socketPath: String) -> URL? {
    let path = DaemonDashboard.urlFilePath(socketPath: socketPath)
    // The file is one short line; anything longer is not ours.
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
      let size = attributes[.size] as? NSNumber, size.intValue < 4096,
      let text = try? String(contentsOfFile: path, encoding: .utf8)
    else { return nil }
    return URL(string: text.trimmingCharacters(in: .whitespacesAndNewlines))
  }
}
