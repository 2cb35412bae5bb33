// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

/// The request/response logic of phyphox remote-access polling, without any I/O.
///
/// Each poll asks `/get` for only what is new, using phyphox's threshold form: for a group whose
/// newest delivered time is T, `acc_time=T&accX=T%7Cacc_time&…` returns the values from the first
/// time above T on. The first poll of a group asks for its last value only (a live source starts
/// "now", not with the experiment's history); if the buffer is empty it asks for the whole buffer
/// next time, which then holds only what has been measured since.
///
/// When a clear restarts experiment time (detected by a probe after an empty poll) or the user
/// switches experiments (`status.session` changes), later samples are shifted by ``timeOffset`` so
/// that timestamps keep increasing.
///
/// Experiment times that are negative, not finite or beyond ``maximumExperimentTime`` are dropped
/// and counted
/// (``implausibleTimeCount``): a forged time such as 1e308 would otherwise become the newest time,
/// hide every later row behind it and, after the next clear, shift every timestamp to 1e308.
package struct PhyphoxPoller: Sendable {
  /// The largest experiment time accepted, in seconds (about 116 days of measuring; phyphox's
  /// time starts at 0 when the measurement starts and excludes pauses).
  package static let maximumExperimentTime = 1e7

  private enum Position: Equatable, Sendable {
    case latest
    case full
    case after(Double)
  }

  /// The groups polled.
  package let groups: [PhyphoxBufferGroup]
  /// Seconds added to experiment time to make sample timestamps.
  package private(set) var timeOffset: Double
  /// The newest timestamp produced.
  package private(set) var lastTimestamp: Double
  /// The session seen in the last answer.
  package private(set) var session: String?
  /// How many rows were dropped because their time was negative, beyond
  /// ``maximumExperimentTime`` or not finite.
  package private(set) var implausibleTimeCount = 0
  private var positions: [Position]
  /// The next request only asks for each time buffer's last value, to detect a clear. Sent after a
  /// poll that brought nothing new for any group, so it never delays one group behind another.
  private var isProbing = false

  /// Creates a poller of `groups`. `session` is the session they were read in, when known: an
  /// answer from another session is then a switch of experiments (``Outcome/sessionChanged``)
  /// even on the first poll; without it the first answer's session is taken as the groups'.
  package init(
    groups: [PhyphoxBufferGroup], timeOffset: Double = 0, lastTimestamp: Double = -.infinity,
    session: String? = nil
  ) {
    self.groups = groups
    self.timeOffset = timeOffset
    self.lastTimestamp = lastTimestamp
    self.session = session
    positions = Array(repeating: .latest, count: groups.count)
  }

  /// The `/get` path for the next poll.
  package func requestPath() -> String {
    var parameters: [String] = []
    for (index, group) in groups.enumerated() {
      let time = Self.encode(group.time)
      if isProbing {
        parameters.append(time)
        continue
      }
      switch positions[index] {
      case .latest:
        parameters.append(time)
        parameters += group.components.map { Self.encode($0) }
      case .full:
        parameters.append("\(time)=full")
        parameters += group.components.map { "\(Self.encode($0))=full" }
      case .after(let threshold):
        let value = Self.format(threshold)
        parameters.append("\(time)=\(value)")
        parameters += group.components.map { "\(Self.encode($0))=\(value)%7C\(time)" }
      }
    }
    return "/get?" + parameters.joined(separator: "&")
  }

  /// What one answer meant.
  package struct Outcome: Sendable {
    /// New samples, each group's in time order (groups are interleaved by the caller's buffer).
    package var samples: [MotionSample] = []
    /// Whether the session changed (the caller should rediscover the buffers).
    package var sessionChanged = false
  }

  /// Consumes the JSON answer to the request from ``requestPath()``.
  ///
  /// - Throws: ``SourceFailure`` (`.malformedData`) if the answer is not the documented shape,
  ///   (`.other`) if it holds none of the time buffers asked for.
  package mutating func consume(_ document: PhoneJSON) throws -> Outcome {
    guard let buffers = document["buffer"]?.objectValue else {
      throw SourceFailure(.malformedData, "phyphox /get answer has no \"buffer\" object")
    }
    var outcome = Outcome()
    if let newSession = document["status"]?["session"]?.stringValue {
      if let session, session != newSession {
        outcome.sessionChanged = true
        restartClock()
        self.session = newSession
        return outcome
      }
      session = newSession
    }
    // phyphox answers every buffer asked for that the experiment has, if empty; an answer with
    // none of them is from an experiment other than the one read (a phyphox without /config
    // running one whose buffers have other names), and was polled in silence for ever.
    guard groups.contains(where: { buffers[$0.time] != nil }) else {
      // At most four names: discovery finds one group per sensor, but buffers given in the
      // configuration may be any number.
      let names =
        groups.prefix(4).map(\.time).joined(separator: ", ") + (groups.count > 4 ? ", …" : "")
      throw SourceFailure(
        .other,
        "phyphox /get answer holds none of the buffers asked for (\(names)), so there are no "
          + "samples; the experiment running is not the one read")
    }
    if isProbing {
      isProbing = false
      for (index, group) in groups.enumerated() {
        guard case .after(let threshold) = positions[index],
          let times = buffers[group.time]?["buffer"]?.arrayValue
        else { continue }
        if (times.last?.doubleValue ?? -.infinity) < threshold {
          restartClock()  // Cleared: the buffer is empty or time went back.
          break
        }
      }
      return outcome
    }
    var anyNew = false
    for (index, group) in groups.enumerated() {
      guard let times = buffers[group.time]?["buffer"]?.arrayValue else { continue }
      let columns = group.components.map { buffers[$0]?["buffer"]?.arrayValue ?? [] }
      // iOS can answer with columns of unequal length; use only complete rows (the rest comes
      // again next time, because the threshold only advances over rows that were used).
      let rowCount = columns.reduce(times.count) { min($0, $1.count) }
      var newest: Double?
      for row in 0..<rowCount {
        guard let time = times[row].doubleValue else { continue }
        guard time.isFinite, time >= 0, time <= Self.maximumExperimentTime else {
          implausibleTimeCount += 1
          continue
        }
        if case .after(let threshold) = positions[index], time <= threshold { continue }
        if let newest, time <= newest { continue }
        newest = time
        let values = columns.map { $0[row].doubleValue ?? .nan }
        guard values.allSatisfy(\.isFinite) else { continue }  // `null`: no valid measurement
        guard values.count >= (group.sensor == .pressure ? 1 : 3) else { continue }
        let timestamp = time + timeOffset
        lastTimestamp = max(lastTimestamp, timestamp)
        outcome.samples.append(Self.sample(group.sensor, timestamp: timestamp, values: values))
      }
      if let newest {
        positions[index] = .after(newest)
        anyNew = true
      } else if positions[index] == .latest {
        positions[index] = .full  // Nothing measured yet: take everything from the start.
      }
    }
    // Nothing new anywhere: next time check whether the experiment was cleared.
    isProbing =
      !anyNew && positions.contains { if case .after = $0 { return true } else { return false } }
    return outcome
  }

  private mutating func restartClock() {
    if lastTimestamp.isFinite { timeOffset = lastTimestamp }
    positions = Array(repeating: .full, count: groups.count)
    isProbing = false
  }

  private static func sample(
    _ sensor: PhyphoxBufferGroup.Sensor, timestamp: Double, values: [Double]
  ) -> MotionSample {
    switch sensor {
    case .accelerometer:
      return MotionSample(
        timestamp: timestamp, accelerometer: SIMD3(values[0], values[1], values[2]))
    case .gyroscope:
      return MotionSample(timestamp: timestamp, gyroscope: SIMD3(values[0], values[1], values[2]))
    case .magnetometer:
      return MotionSample(
        timestamp: timestamp, magnetometer: SIMD3(values[0], values[1], values[2]))
    case .pressure:
      return MotionSample(timestamp: timestamp, pressure: values[0] / 10)  // hPa → kPa
    }
  }

  /// A threshold with every digit a `Double` needs (phyphox compares against its own value).
  package static func format(_ value: Double) -> String {
    "\(value)"
  }

  /// Percent-encodes a buffer name for a query string.
  package static func encode(_ name: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
  }
}
