// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDaemonClient

/// Runs one async daemon request from a synchronous command and returns its result.
enum DaemonRequest {
  static func run<T: Sendable>(
    socket: String?, _ body: @escaping @Sendable (DaemonClient) async throws -> T
  ) throws -> T {
    let client = DaemonClient(
      socketPath: socket ?? DaemonClient.defaultSocketPath(), clientName: "motionctl")
    defer { client.close() }
    do { try client.connect() } catch let error as DaemonError { throw CLIError(error.message) }
    let result = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
      do { result.set(.success(try await body(client))) } catch { result.set(.failure(error)) }
      done.signal()
    }
    done.wait()
    do { return try result.get() } catch let error as DaemonError {
      throw CLIError("\(error.message) (CMError \(error.coreMotionErrorCode))")
    }
  }
}

/// A result handed from a task to a waiting thread.
final class ResultBox<T: Sendable>: @unchecked Sendable {
  // Sendable because `value` is only touched under `lock`.
  private let lock = NSLock()
  private var value: Result<T, any Error>?
  func set(_ result: Result<T, any Error>) { lock.withLock { value = result } }
  func get() throws -> T {
    guard let value = lock.withLock({ value }) else { throw CLIError("no result") }
    return try value.get()
  }
}
