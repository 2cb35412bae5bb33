// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

/// The generated protocol code was `public` (regenerate.sh asked for `Visibility=Public`), 527
/// declarations of a module that is not a product: the package's helpers are `package`, and a
/// public API that exposed a wire type would then not compile. This reads the committed file and
/// the script, so that a regeneration with the old option is caught here rather than in review.
@Suite struct GeneratedProtocolVisibilityTests {
  private static let directory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Sources/MotionDaemonProtocol")

  @Test func theGeneratedTypesArePackageNotPublic() throws {
    let generated = try String(
      contentsOf: Self.directory.appendingPathComponent("motiond.pb.swift"), encoding: .utf8)
    let lines = generated.split(separator: "\n")
    let publicLines = lines.filter {
      $0.trimmingCharacters(in: .whitespaces).hasPrefix("public ")
    }
    #expect(
      publicLines.isEmpty,
      "\(publicLines.count) public declarations, first: \(publicLines.first ?? "")")
    #expect(lines.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("package ") })
    let script = try String(
      contentsOf: Self.directory.appendingPathComponent("regenerate.sh"), encoding: .utf8)
    #expect(script.contains("--swift_opt=Visibility=Package"))
    #expect(!script.contains("Visibility=Public"))
  }
}
