// SPDX-License-Identifier: Apache-2.0

import Foundation

extension DaemonClient {
  /// The daemon's state.
  public func status() async throws -> DaemonStatus {
    try await answer(to: .status)
  }

  /// Pedometer totals between two dates (`CMPedometer.queryPedometerData`).
  public func pedometerTotals(from start: Date, to end: Date) async throws -> DaemonPedometerTotals
  {
    try await answer(to: .pedometerTotals(from: start, to: end))
  }

  /// Activity segments between two dates, starting with the one in force at `start`
  /// (`CMMotionActivityManager.queryActivityStarting`).
  public func activities(from start: Date, to end: Date) async throws -> [DaemonActivitySegment] {
    try await answer(to: .activities(from: start, to: end))
  }

  /// Recorded accelerometer samples with `start ≤ date ≤ end` (≤ 12 h; `CMSensorRecorder`).
  public func recordedAccelerometer(
    from start: Date, to end: Date
  ) async throws -> [DaemonRecordedSample] {
    try await answer(to: .recordedAccelerometer(from: start, to: end))
  }

  /// Asks the daemon to record the accelerometer for `duration` s (≤ 43 200); returns when the
  /// recording now ends.
  public func recordAccelerometer(duration: Double) async throws -> Date {
    try await answer(to: .recordAccelerometer(duration: duration))
  }

  /// Whether the user allows motion history (`motionctl privacy`), asked of the daemon now.
  public func historyAuthorization() async throws -> Bool {
    try await answer(to: .historyAuthorization)
  }

  /// Whether the user allows motion history, without a round trip: the daemon's answer at the
  /// handshake, kept current by the notice the daemon sends every client when the user changes it.
  ///
  /// While disconnected, a read that knows nothing yet makes one attempt to connect, on the
  /// calling thread (0.5 s at most, at most one a second), and says `true` if that fails. A read
  /// that knows an answer returns it at once and refreshes it on a thread of its own (one
  /// attempt at most every second, one at a time), so that a later read sees the change the user
  /// made while the client was away. `CMPedometer.authorizationStatus()` and its like read this
  /// on the app's thread, which a read waiting for that attempt held up, once a second, for the
  /// whole 0.5 s against a daemon that takes connections and does not answer.
  public var isHistoryAuthorized: Bool {
    let (known, attempt) = state.withLock { s -> (Bool?, Bool) in
      let now = ProcessInfo.processInfo.systemUptime
      let connected = s.socket != nil && s.info != nil
      guard !connected, !s.isClosed, !s.isRefreshingAuthorization,
        now - s.lastAuthorizationConnect >= 1
      else { return (s.historyAuthorized, false) }
      s.lastAuthorizationConnect = now
      if s.historyAuthorized != nil { s.isRefreshingAuthorization = true }
      return (s.historyAuthorized, true)
    }
    guard attempt else { return known ?? true }
    guard let known else {
      guard (try? connect(timeout: Self.authorizationConnectTimeout)) != nil else { return true }
      return state.withLock { $0.historyAuthorized } ?? true
    }
    let refresh = Thread { [weak self] in
      guard let self else { return }
      _ = try? self.connect(timeout: Self.authorizationConnectTimeout)
      self.state.withLock { $0.isRefreshingAuthorization = false }
    }
    refresh.name = "motiond-client-authorization"
    refresh.start()
    return known
  }

  /// How long ``isHistoryAuthorized`` tries to connect, s.
  private static let authorizationConnectTimeout = 0.5

  /// Allows or denies motion history (deny stops recording and deletes the history).
  public func setHistoryAllowed(_ allowed: Bool) async throws {
    try await answer(to: .setHistoryAllowed(allowed))
  }
}
