// SPDX-License-Identifier: Apache-2.0

import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import MotionSensors
import NIOCore
import ServiceLifecycle

/// Runs a Hummingbird application on an ephemeral loopback port for the duration of a test.
final class NetworkTestApplication: @unchecked Sendable {
  /// A logger for test servers that only reports critical problems.
  static let quietLogger: Logger = {
    var logger = Logger(label: "PhoneStreamsTests.server")
    logger.logLevel = .critical
    return logger
  }()

  // @unchecked Sendable: `task` is set once in init and only cancelled afterwards.
  private var task: Task<Void, Never>?
  private var services: ServiceGroup?
  private let finished = DispatchSemaphore(value: 0)
  /// The port listened on.
  private(set) var port: UInt16 = 0

  /// Starts `makeApplication` (given the callback that reports the bound port) and waits until it
  /// listens.
  init(
    _ makeApplication: (@escaping @Sendable (any Channel) async -> Void) -> any ApplicationProtocol
  ) throws {
    let started = DispatchSemaphore(value: 0)
    let boundPort = Locked<UInt16>(0)
    let application = makeApplication { channel in
      boundPort.withLock { $0 = UInt16(channel.localAddress?.port ?? 0) }
      started.signal()
    }
    var logger = Logger(label: "PhoneStreamsTests.server")
    logger.logLevel = .critical
    let services = ServiceGroup(
      configuration: ServiceGroupConfiguration(services: [application], logger: logger))
    self.services = services
    let finished = self.finished
    task = Task.detached {
      try? await services.run()
      finished.signal()
      started.signal()
    }
    guard started.wait(timeout: .now() + 10) == .success, boundPort.withLock({ $0 }) != 0 else {
      stop()
      throw NetworkTestError("test server did not start")
    }
    port = boundPort.withLock { $0 }
  }

  /// Stops the server (gracefully, then by cancellation) and waits (bounded) until it has closed.
  func stop() {
    guard let services else { return }
    Task.detached { await services.triggerGracefulShutdown() }
    if finished.wait(timeout: .now() + 2) == .success { return }
    task?.cancel()
    _ = finished.wait(timeout: .now() + 2)
  }
}

/// A fake SensorServer phone: a WebSocket server at `/sensors/connect` whose behaviour for each
/// connection is `script(outbound, connectionIndex)`; it reads (and so answers pings) only when
/// `answersPings` is true. `writeTextMessage` splits a text of more than `maximumFrameSize` bytes
/// (Hummingbird's default, 16 KiB) into several frames.
final class NetworkTestPhone: @unchecked Sendable {
  // @unchecked Sendable: the mutable state is in `Locked` boxes; `application` is set once.
  typealias Script = @Sendable (WebSocketOutboundWriter, Int) async throws -> Void

  private var application: NetworkTestApplication!
  private let connections = Locked(0)
  private let targets = Locked<[String]>([])

  init(
    answersPings: Bool = true, maximumFrameSize: Int = 1 << 14, script: @escaping Script
  ) throws {
    let router = Router(context: BasicWebSocketRequestContext.self)
    router.ws("/sensors/connect") { [connections, targets] inbound, outbound, context in
      let index = connections.withLock { count -> Int in
        defer { count += 1 }
        return count
      }
      targets.withLock { $0.append(context.request.uri.description) }
      if answersPings {
        try await withThrowingTaskGroup(of: Void.self) { group in
          group.addTask { for try await _ in inbound {} }
          group.addTask { try await script(outbound, index) }
          try await group.next()
          group.cancelAll()
        }
      } else {
        try await script(outbound, index)
      }
    }
    application = try NetworkTestApplication { onRunning in
      Application(
        router: Router(),
        server: .http1WebSocketUpgrade(
          webSocketRouter: router,
          configuration: .init(ws: .init(maxFrameSize: maximumFrameSize))),
        configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: onRunning, logger: NetworkTestApplication.quietLogger)
    }
  }

  var port: UInt16 { application.port }
  /// How many WebSocket connections were made.
  var connectionCount: Int { connections.withLock { $0 } }
  /// The request targets of the upgrades.
  var requestTargets: [String] { targets.withLock { $0 } }

  func stop() { application.stop() }
}
