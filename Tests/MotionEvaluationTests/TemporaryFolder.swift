// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

extension XCTestCase {
  /// A new empty folder under the temporary directory, removed when the test ends.
  func temporaryFolder(_ prefix: String) throws -> URL {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
    return folder
  }
}
