// SPDX-License-Identifier: Apache-2.0

/// How a connection receives the rows of `data` frames (docs/Dashboard.md).
///
/// A client chooses with the WebSocket URL's query: `/ws?format=binary`; without it (or with
/// `format=json`) every frame is JSON text, as tools written against the first version expect.
/// The page asks for binary frames: the rows, most of a frame, then cost the server no number
/// formatting and the page no number parsing.
package enum DashboardFrameFormat: String, Sendable, CaseIterable {
  /// Every message is JSON text; rows are arrays of numbers in the text.
  case json
  /// `data` frames are binary WebSocket messages (``DashboardBinaryFrame``); `hello` and
  /// `notice` stay JSON text.
  case binary

  /// The format a WebSocket URL's query asks for: `format=json|binary`; `nil` for any other
  /// value (the upgrade is refused, so a typo is not silently served JSON).
  package init?(query: [(name: String, value: String)]) {
    guard let requested = query.last(where: { $0.name == "format" })?.value else {
      self = .json
      return
    }
    guard let format = DashboardFrameFormat(rawValue: requested) else { return nil }
    self = format
  }
}
