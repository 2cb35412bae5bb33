// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A command the page sends as a WebSocket text message (see docs/Dashboard.md).
package struct DashboardControlMessage: Decodable, Sendable, Equatable {
  /// `setFrame`, `setRate`, `startRecording`, `stopRecording` or `setScenario`.
  package var op: String
  package var frame: String?
  package var rate: Double?
  package var name: String?
  package var scenario: String?

  /// The longest control message read, bytes; longer ones close the connection.
  package static let maximumSize = 4096

  /// Parses a message; `nil` for anything that is not a JSON object with a string `op`.
  package static func parse(_ text: String) -> DashboardControlMessage? {
    guard text.utf8.count <= maximumSize else { return nil }
    return try? JSONDecoder().decode(DashboardControlMessage.self, from: Data(text.utf8))
  }
}
