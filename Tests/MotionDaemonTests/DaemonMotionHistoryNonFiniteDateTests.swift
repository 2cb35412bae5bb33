// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionConcurrency
import MotionDaemonClient
import Testing

@testable import OpenCoreMotion

/// A date that is not finite, on the daemon: a NaN start passed the API's reversed-range check
/// (`start > end` is false with it) and went to the daemon, and the answer (here a daemon
/// that answers any pedometer question with 50 steps; motiond refuses it, and the process's own
/// count then answered) came back as if the window were valid. The API now refuses it with
/// `CMErrorInvalidParameter` before anything is asked.
@Suite struct DaemonMotionHistoryNonFiniteDateTests {
  private static func pedometerOnAFakeDaemon() throws -> (FakeDaemon, DaemonSource, CMPedometer) {
    let daemon = try FakeDaemon()
    daemon.pedometerSteps = 50
    let source = try DaemonSource(socketPath: daemon.path)
    let live = InProcessMotionHistory(source: source, startsObserving: false)
    let history = DaemonMotionHistory(client: source.client, live: live)
    return (daemon, source, CMPedometer(backend: history))
  }

  @Test func aQueryWithANaNDateIsRefusedWithoutAskingTheDaemon() throws {
    let (daemon, source, pedometer) = try Self.pedometerOnAFakeDaemon()
    defer { withExtendedLifetime(daemon) {} }
    let nan = Date(timeIntervalSinceReferenceDate: .nan)
    for (start, end) in [(nan, Date()), (Date(timeIntervalSinceNow: -60), nan)] {
      let answer = Locked<(steps: Int?, code: Int?)>((nil, nil))
      let done = DispatchSemaphore(value: 0)
      pedometer.queryPedometerData(from: start, to: end) { data, error in
        answer.withLock { $0 = (data?.numberOfSteps.intValue, coreMotionCode(error)) }
        done.signal()
      }
      #expect(done.wait(timeout: .now() + 30) == .success, "the query answers")
      let (steps, code) = answer.withLock { $0 }
      #expect(steps == nil)
      #expect(code == Int(CMErrorInvalidParameter.rawValue))
    }
    #expect(daemon.queries == 0)
    source.client.close()
  }

  @Test func updatesFromANaNStartAreRefusedWithoutAskingTheDaemon() throws {
    let (daemon, source, pedometer) = try Self.pedometerOnAFakeDaemon()
    defer { withExtendedLifetime(daemon) {} }
    let answer = Locked<(steps: Int?, code: Int?)>((nil, nil))
    let done = DispatchSemaphore(value: 0)
    pedometer.startUpdates(from: Date(timeIntervalSinceReferenceDate: .nan)) { data, error in
      answer.withLock { $0 = (data?.numberOfSteps.intValue, coreMotionCode(error)) }
      done.signal()
    }
    #expect(done.wait(timeout: .now() + 30) == .success, "the start answers")
    pedometer.stopUpdates()
    let (steps, code) = answer.withLock { $0 }
    #expect(steps == nil)
    #expect(code == Int(CMErrorInvalidParameter.rawValue))
    #expect(daemon.queries == 0)
    source.client.close()
  }

}

/// The error's code when it is a Core Motion error.
private func coreMotionCode(_ error: (any Error)?) -> Int? {
  guard let error = error as NSError?, error.domain == CMErrorDomain else { return nil }
  return error.code
}
