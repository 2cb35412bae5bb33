// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDaemonProtocol
import MotionSensors

/// One question to the motion daemon and how its replies make the answer.
///
/// A query can be sent three ways: awaited (``DaemonClient/answer(to:)``, behind the public
/// `async` methods), waited for on a thread of the caller's own
/// (``DaemonClient/waitForAnswer(to:timeout:)``, for the synchronous Core Motion history
/// queries), or handed to a completion handler
/// (``DaemonClient/ask(_:connectingFor:sendingBy:completion:)``, for callers on the connection's
/// reader thread, which must not wait).
package struct DaemonQuery<Answer: Sendable>: Sendable {
  /// Fills in the request (its id is the client's).
  let fill: @Sendable (inout WireClientMessage) -> Void
  /// Makes the reader of one request's replies: each reply in turn gives the answer, or `nil`
  /// while more are due (a long answer comes in chunks), or throws when it is not what was asked
  /// for. An error reply never reaches it (the client turns it into a ``DaemonError``).
  let makeReader: @Sendable () -> (WireServerMessage) throws -> Answer?

  /// A query answered by a single reply.
  init(
    fill: @escaping @Sendable (inout WireClientMessage) -> Void,
    decode: @escaping @Sendable (WireServerMessage) throws -> Answer
  ) {
    self.fill = fill
    self.makeReader = { { message in try decode(message) } }
  }

  /// A query answered in chunks.
  init(
    fill: @escaping @Sendable (inout WireClientMessage) -> Void,
    makeReader: @escaping @Sendable () -> (WireServerMessage) throws -> Answer?
  ) {
    self.fill = fill
    self.makeReader = makeReader
  }

  /// A reply of the wrong kind, as an error.
  static func unexpected(_ message: WireServerMessage) -> DaemonError {
    DaemonError(
      .protocolError, "unexpected reply from the motion daemon: \(String(describing: message.body))"
    )
  }
}

extension DaemonQuery where Answer == DaemonStatus {
  /// The daemon's state (`motionctl status`).
  package static var status: Self {
    Self(fill: { $0.status = Opencoremotion_Daemon_V1_StatusRequest() }) { message in
      guard case .status(let s) = message.body else { throw unexpected(message) }
      return DaemonStatus(
        sourceName: s.sourceName, availableSensors: Wire.sensorSet(s.availableSensors),
        sourceRate: s.sourceRateHz,
        sourceSensors: Wire.sensorSet(s.sourceSensors), sourceSubscribed: s.sourceSubscribed,
        clients: s.clients.map { c in
          DaemonStatus.Client(
            name: c.name, processID: Int(c.pid),
            subscriptions: c.subscriptions.map {
              DaemonStreamRequest(
                sensors: Wire.sensorSet($0.sensors), rate: $0.rateHz, pedometer: $0.pedometer,
                activity: $0.activity,
                altitude: $0.altitude, fusedMotion: $0.fusedMotion,
                deviceMotionFrame: DaemonReferenceFrame(rawValue: $0.deviceMotionFrame.rawValue))
            }, dropped: c.dropped, queued: Int(c.queued))
        },
        historyAuthorized: s.historyAuthorized, historyState: s.historyState,
        historyOldest: s.historyOldestDate > 0
          ? Date(timeIntervalSince1970: s.historyOldestDate) : nil,
        historyNewest: s.historyNewestDate > 0
          ? Date(timeIntervalSince1970: s.historyNewestDate) : nil,
        historyBytes: s.historyBytes,
        recordingUntil: s.recordingUntilDate > 0
          ? Date(timeIntervalSince1970: s.recordingUntilDate) : nil,
        samplesReceived: s.samplesReceived, storePath: s.storePath)
    }
  }
}

extension DaemonQuery where Answer == DaemonPedometerTotals {
  /// Pedometer totals between two dates (`CMPedometer.queryPedometerData`), with the live
  /// counters at the instant of the answer.
  package static func pedometerTotals(from start: Date, to end: Date) -> Self {
    Self(
      fill: {
        var query = Opencoremotion_Daemon_V1_PedometerQuery()
        query.fromDate = start.timeIntervalSince1970
        query.toDate = end.timeIntervalSince1970
        $0.pedometerQuery = query
      },
      decode: { message in
        guard case .pedometer(let p) = message.body else { throw unexpected(message) }
        let c = p.counters
        return DaemonPedometerTotals(
          startDate: Date(timeIntervalSince1970: p.fromDate),
          endDate: Date(timeIntervalSince1970: p.toDate),
          steps: p.steps, distance: p.distance, floorsAscended: p.floorsAscended,
          floorsDescended: p.floorsDescended,
          activeTime: p.activeSeconds,
          counters: p.hasCounters
            ? DaemonPedometerReading(
              timestamp: c.timestamp, date: Date(timeIntervalSince1970: c.date), steps: c.steps,
              distance: c.distance,
              floorsAscended: c.floorsAscended, floorsDescended: c.floorsDescended,
              cadence: c.cadence,
              activeTime: c.activeSeconds) : nil)
      })
  }
}

extension DaemonQuery where Answer == [DaemonActivitySegment] {
  /// Activity segments between two dates, starting with the one in force at `start`
  /// (`CMMotionActivityManager.queryActivityStarting`).
  package static func activities(from start: Date, to end: Date) -> Self {
    Self(
      fill: {
        var query = Opencoremotion_Daemon_V1_ActivityQuery()
        query.fromDate = start.timeIntervalSince1970
        query.toDate = end.timeIntervalSince1970
        $0.activityQuery = query
      },
      decode: { message in
        guard case .activities(let a) = message.body else { throw unexpected(message) }
        return a.segments.map(DaemonClient.segment)
      })
  }
}

extension DaemonQuery where Answer == [DaemonRecordedSample] {
  /// Recorded accelerometer samples with `start ≤ date ≤ end` (≤ 12 h; `CMSensorRecorder`),
  /// received in chunks.
  package static func recordedAccelerometer(from start: Date, to end: Date) -> Self {
    Self(
      fill: {
        var query = Opencoremotion_Daemon_V1_AccelerometerQuery()
        query.fromDate = start.timeIntervalSince1970
        query.toDate = end.timeIntervalSince1970
        $0.accelerometerQuery = query
      },
      makeReader: {
        // The chunks of one request arrive one at a time (the client delivers them in order
        // under the request's lock), so the reader keeps what came so far by itself.
        var collected: [DaemonRecordedSample] = []
        return { message in
          guard case .recorded(let chunk) = message.body else { throw unexpected(message) }
          collected.reserveCapacity(collected.count + chunk.samples.count)
          for s in chunk.samples {
            collected.append(
              DaemonRecordedSample(
                identifier: s.identifier, timestamp: s.timestamp,
                startDate: Date(timeIntervalSince1970: s.date),
                specificForce: Wire.simd(s.acceleration)))
          }
          return chunk.complete ? collected : nil
        }
      })
  }
}

extension DaemonQuery where Answer == Date {
  /// Asks the daemon to record the accelerometer for `duration` s (≤ 43 200); answered with
  /// when the recording now ends.
  package static func recordAccelerometer(duration: Double) -> Self {
    Self(
      fill: {
        var record = Opencoremotion_Daemon_V1_RecordAccelerometer()
        record.duration = duration
        $0.recordAccelerometer = record
      },
      decode: { message in
        guard case .ack(let ack) = message.body else { throw unexpected(message) }
        return Date(timeIntervalSince1970: ack.untilDate)
      })
  }
}

extension DaemonQuery where Answer == Bool {
  /// Whether the user allows motion history (`motionctl privacy`).
  package static var historyAuthorization: Self {
    Self(fill: { $0.authorizationQuery = Opencoremotion_Daemon_V1_AuthorizationQuery() }) {
      message in
      guard case .authorization(let answer) = message.body else { throw unexpected(message) }
      return answer.historyAuthorized
    }
  }
}

extension DaemonQuery where Answer == Void {
  /// Allows or denies motion history (deny stops recording and deletes the history).
  package static func setHistoryAllowed(_ allowed: Bool) -> Self {
    Self(
      fill: {
        var privacy = Opencoremotion_Daemon_V1_SetPrivacy()
        privacy.allow = allowed
        $0.setPrivacy = privacy
      },
      decode: { message in
        guard case .ack = message.body else { throw unexpected(message) }
        return ()
      })
  }
}
