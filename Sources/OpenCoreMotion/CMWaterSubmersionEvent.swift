// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A change of the device's submersion state, told to a ``CMWaterSubmersionManagerDelegate``.
open class CMWaterSubmersionEvent: NSObject, NSCopying, NSSecureCoding {
  /// Whether the device is under water (Apple's raw values).
  public enum State: Int, Sendable {
    /// Not known yet.
    case unknown = 0
    /// Out of the water.
    case notSubmerged = 1
    /// Under water.
    case submerged = 2
  }

  private let storedDate: Date
  private let storedState: State

  /// When the state changed.
  open var date: Date { storedDate }
  /// The new state.
  open var state: State { storedState }

  /// An unknown state at the reference date. Apps normally receive events from the manager.
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: a mock subclass can call
  /// `super.init()`.
  public override init() {
    storedDate = Date(timeIntervalSinceReferenceDate: 0)
    storedState = .unknown
    super.init()
  }

  /// Creates an event. An addition to Apple's API, for tests and mocks.
  public init(date: Date, state: State) {
    storedDate = date
    storedState = state
    super.init()
  }

  /// Returns `self`: events are immutable.
  open func copy(with zone: NSZone? = nil) -> Any { self }

  open class var supportsSecureCoding: Bool { true }

  open func encode(with coder: NSCoder) {
    coder.encodeDate(storedDate, forKey: "date")
    coder.encode(storedState.rawValue, forKey: "state")
  }

  public required init?(coder: NSCoder) {
    guard let state = State(rawValue: coder.decodeInteger(forKey: "state")) else { return nil }
    storedDate = coder.decodeDate(forKey: "date")
    storedState = state
    super.init()
  }

  open override var description: String {
    "<CMWaterSubmersionEvent \(storedState) at \(storedDate.logDescription)>"
  }
}
