// SPDX-License-Identifier: Apache-2.0

/// A failed daemon request, with the `CMError` code Core Motion would report for it.
public struct DaemonError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Why the request failed; ``coreMotionErrorCode`` maps it to Core Motion's.
  public enum Code: Sendable, Equatable {
    /// A parameter was out of range (`CMErrorInvalidParameter`, 107).
    case invalidParameter
    /// The user denied motion history (`CMErrorMotionActivityNotAuthorized`, 105).
    case notAuthorized
    /// History or the sensor is not available now (`CMErrorNotAvailable`, 109).
    case notAvailable
    /// Nothing was recorded in the range (`CMErrorUnknown`, 103, as Apple reports it).
    case noData
    /// The daemon is not running or went away (`CMErrorUnknown`, 103).
    case disconnected
    /// The daemon did not answer in time (`CMErrorUnknown`, 103).
    case timeout
    /// The task that made the request was cancelled (`CMErrorUnknown`, 103).
    case cancelled
    /// The daemon sent something this client does not understand (`CMErrorUnknown`, 103).
    case protocolError
  }

  /// Why the request failed.
  public var code: Code
  /// What went wrong, for people (the daemon's words, or this client's).
  public var message: String

  /// An error of kind `code`, described by `message`.
  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  /// The `CMError` raw value for this failure (Apple's numbering).
  public var coreMotionErrorCode: UInt32 {
    switch code {
    case .invalidParameter: return 107
    case .notAuthorized: return 105
    case .notAvailable: return 109
    case .noData, .disconnected, .timeout, .cancelled, .protocolError: return 103
    }
  }

  public var description: String { message }
}
