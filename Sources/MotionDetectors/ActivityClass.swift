// SPDX-License-Identifier: Apache-2.0

/// The mutually exclusive classes the activity model scores; `ActivityEstimate` turns them into
/// Core Motion's (non-exclusive) flags.
public enum ActivityClass: Int, Sendable, CaseIterable, Codable, CustomStringConvertible {
  case stationary = 0
  case walking = 1
  case running = 2
  case cycling = 3
  case automotive = 4

  /// The number of classes (the model's output width).
  public static let count = 5

  /// The lower-case name used in labels, JSON and tables (`"stationary"`…).
  public var description: String {
    switch self {
    case .stationary: "stationary"
    case .walking: "walking"
    case .running: "running"
    case .cycling: "cycling"
    case .automotive: "automotive"
    }
  }

  /// Parses a label as written in the shared data's `index.csv` (`"walking"`…); `nil` otherwise.
  public init?(label: String) {
    guard let match = Self.allCases.first(where: { $0.description == label }) else { return nil }
    self = match
  }
}
