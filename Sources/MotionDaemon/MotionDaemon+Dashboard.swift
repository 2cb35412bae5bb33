// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

extension MotionDaemon {
  /// The URL (with its access token) of the dashboard served by the daemon listening on
  /// `socketPath`, as the daemon wrote it next to its socket; `nil` when that daemon serves none.
  ///
  /// The file outlives a daemon killed with SIGKILL, so callers check that a daemon answers on the
  /// socket too.
  public static func dashboardURL(socketPath: String) -> URL? {
    let path = DaemonDashboard.urlFilePath(socketPath: socketPath)
    // The file is one short line; anything longer is not ours. The folder may be another user's
    // (`/tmp` without XDG_RUNTIME_DIR), so the file is read only if it is a regular one, without
    // waiting (a FIFO in its place used to block every `motionctl dashboard`), and at most 4 KiB
    // of it.
    guard let data = try? RegularFile.readPrefix(path, count: 4096, purpose: "dashboard URLs"),
      data.count < 4096, let text = String(data: data, encoding: .utf8)
    else { return nil }
    return URL(string: text.trimmingCharacters(in: .whitespacesAndNewlines))
  }
}
