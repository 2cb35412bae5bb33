// SPDX-License-Identifier: Apache-2.0

/// A phone's answer did not complete within its deadline.
///
/// A library deadline often covers only part of an exchange (AsyncHTTPClient's ends when the
/// response head arrives), so a phone that stalls or trickles the rest would hold the caller for
/// as long as it likes. ``run(within:_:)`` bounds the whole operation instead.
struct PhoneStreamDeadline: Error, CustomStringConvertible {
  /// The deadline that passed, in seconds.
  var seconds: Double

  var description: String { "no complete answer within \(seconds) s" }

  /// Runs `operation`, cancelling it and throwing ``PhoneStreamDeadline`` if it has not finished
  /// after `seconds`. The operation must end when cancelled (AsyncHTTPClient's requests and body
  /// streams do: cancelling closes the connection).
  static func run<Value: Sendable>(
    within seconds: Double, _ operation: @escaping @Sendable () async throws -> Value
  ) async throws -> Value {
    try await withThrowingTaskGroup(of: Value?.self) { group in
      group.addTask { try await operation() }
      group.addTask {
        // Returns nil when the deadline passes; cancelled (throws) when the operation wins.
        guard await phoneStreamPause(seconds) else { throw CancellationError() }
        return nil
      }
      defer { group.cancelAll() }
      guard let first = try await group.next(), let value = first else {
        throw PhoneStreamDeadline(seconds: seconds)
      }
      return value
    }
  }
}
