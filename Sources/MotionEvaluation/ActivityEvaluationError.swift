// SPDX-License-Identifier: Apache-2.0

/// A problem with the activity evaluation's input (paths, index files).
public struct ActivityEvaluationError: Error, CustomStringConvertible, Sendable {
  public var description: String
  public init(_ description: String) { self.description = description }
}
