// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Locates read-only material in `../shared` beside the repository (the BROAD trials and the
/// references). Tests call ``SharedData/file(_:)``: when the file is missing it returns `nil` on a
/// developer machine (the test then skips) but on CI (`CI=true`) a missing file is a failure, which
/// the caller reports.
package enum SharedData {
  /// The repository root, found from this source file's location.
  package static let repositoryRoot: URL = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }  // _MotionTestSupport, Sources, root
    return url
  }()

  /// `../shared`, or `$OPENCOREMOTION_SHARED` when set.
  package static var root: URL {
    if let override = ProcessInfo.processInfo.environment["OPENCOREMOTION_SHARED"] {
      return URL(fileURLWithPath: override)
    }
    return repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared")
  }

  /// The BROAD trials folder.
  package static var broadDirectory: URL { root.appendingPathComponent("data/broad") }

  /// Whether the run is on CI, where missing shared data fails instead of skipping.
  package static var isCI: Bool {
    ProcessInfo.processInfo.environment["CI"]?.lowercased() == "true"
  }

  /// The URL of a BROAD trial by file name (`"24_disturbed_tapping_A.csv"`), or `nil` if absent.
  package static func broadTrial(_ fileName: String) -> URL? {
    let url = broadDirectory.appendingPathComponent(fileName)
    return FileManager.default.fileExists(atPath: url.path) ? url : nil
  }
}
