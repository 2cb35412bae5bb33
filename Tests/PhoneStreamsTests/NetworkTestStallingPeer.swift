// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

/// A loopback peer that accepts TCP connections, reads what they send and never answers: a phone
/// that hangs mid-handshake, or a captive portal that accepts any SYN. Optionally it answers with
/// a fixed prefix (a head, part of a body) and then stalls.
final class NetworkTestStallingPeer: @unchecked Sendable {
  // @unchecked Sendable: `listener` and `answer` are set once in init; the rest is in `Locked`.
  private let listener: NetworkTestSocket
  private let answer: [UInt8]
  private let held = Locked<[NetworkTestSocket]>([])
  private let requests = Locked(0)
  private let stopped = Locked(false)
  private let finished = DispatchSemaphore(value: 0)
  /// The port listened on.
  let port: UInt16

  /// Starts listening; `answer` is sent once the request head (up to a blank line) has arrived.
  init(answer: String = "") throws {
    (listener, port) = try NetworkTestSocket.listen()
    self.answer = Array(answer.utf8)
    let thread = Thread { [self] in serve() }
    thread.start()
  }

  /// How many connections were accepted.
  var acceptedCount: Int { held.withLock { $0.count } }
  /// How many request heads have been read in full (the peer reads those connections no more).
  var requestCount: Int { requests.withLock { $0 } }

  /// Whether the other end closes connection `index` (in the order accepted) within `timeout`
  /// seconds; only for a connection whose request head has been read (see ``requestCount``).
  func waitForClose(ofConnection index: Int, timeout: Double) -> Bool {
    guard let socket = held.withLock({ index < $0.count ? $0[index] : nil }) else { return false }
    return socket.waitForClose(timeout: timeout)
  }

  private func serve() {
    defer { finished.signal() }
    var pending: [(socket: NetworkTestSocket, request: [UInt8])] = []
    while !stopped.withLock({ $0 }) {
      if let socket = listener.accept(timeout: 0.01) {
        held.withLock { $0.append(socket) }
        pending.append((socket, []))
      }
      // Read each connection's request head, then send the answer (if any) and stall.
      pending = pending.compactMap { entry in
        var entry = entry
        guard let bytes = try? entry.socket.receive(timeout: 0), !bytes.isEmpty else {
          return entry
        }
        entry.request += bytes
        guard NetworkTestHTTPClient.find([13, 10, 13, 10], in: entry.request) != nil else {
          return entry
        }
        if !answer.isEmpty { _ = try? entry.socket.send(answer, timeout: 1) }
        requests.withLock { $0 += 1 }
        return nil
      }
    }
  }

  /// Closes every connection and the listener.
  func stop() {
    stopped.withLock { $0 = true }
    _ = finished.wait(timeout: .now() + 2)
    held.withLock { sockets in sockets.forEach { $0.close() } }
    listener.close()
  }
}
