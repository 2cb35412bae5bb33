// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Why a scenario could not be found, read or used.
public enum ScenarioError: Error, Sendable, Equatable, CustomStringConvertible {
  /// No built-in scenario has this name; `validNames` lists those that exist.
  case unknownName(String, validNames: [String])
  /// The file could not be read (missing, not a regular file, too large) or its JSON could not be
  /// decoded (file name, reason with its JSON path).
  case malformed(String, String)
  /// The scenario's values are out of range.
  case invalid(String)

  public var description: String {
    switch self {
    case .unknownName(let name, let valid):
      return "Unknown scenario '\(name)'. Valid names: \(valid.joined(separator: ", "))"
    case .malformed(let file, let reason):
      return "Cannot read scenario \(file): \(reason)"
    case .invalid(let message):
      return "Invalid \(message)"
    }
  }
}

extension ScenarioError: LocalizedError {
  public var errorDescription: String? { description }
}
