// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The page's files, read once from the package's resources: only these names are ever served,
/// so no request path reaches the file system.
package struct DashboardStaticFiles: Sendable {
  package struct File: Sendable {
    package var contents: Data
    package var contentType: String
  }

  /// Request path → file.
  package let files: [String: File]

  package static let names: [(name: String, contentType: String)] = [
    ("index.html", "text/html; charset=utf-8"),
    ("dashboard.css", "text/css; charset=utf-8"),
    ("dashboard.js", "text/javascript; charset=utf-8"),
  ]

  /// Reads the files from `Bundle.module`.
  ///
  /// - Throws: ``DashboardError/missingResource(_:)`` when one is not in the bundle.
  package init() throws {
    var files: [String: File] = [:]
    for (name, contentType) in Self.names {
      let base = (name as NSString).deletingPathExtension
      let ext = (name as NSString).pathExtension
      guard
        let url = Bundle.module.url(
          forResource: base, withExtension: ext, subdirectory: "Resources")
          ?? Bundle.module.url(forResource: base, withExtension: ext)
      else { throw DashboardError.missingResource(name) }
      files["/" + name] = File(contents: try Data(contentsOf: url), contentType: contentType)
    }
    files["/"] = files["/index.html"]
    self.files = files
  }
}

/// Why the dashboard cannot start.
public enum DashboardError: Error, CustomStringConvertible, Sendable {
  case missingResource(String)
  case tokenRequired(host: String)

  public var description: String {
    switch self {
    case .missingResource(let name):
      return "the dashboard's resource \(name) is missing from the package"
    case .tokenRequired(let host):
      return "listening on \(host) (not loopback) requires an access token"
    }
  }
}
