// SPDX-License-Identifier: Apache-2.0

import MotionSensors

/// Everything the Sensor Logger receiver does with a push body, without any I/O: decoding
/// (``SensorLoggerBatch``), message order (``SensorLoggerMessageSequencer``), units and signs
/// (``SensorLoggerConverter``) and sample order (``SampleReorderBuffer``).
///
/// The transport hands each POST body to ``receive(body:now:)`` and calls ``tick(now:)`` every few
/// milliseconds; both return the events to deliver, in order. Every input is untrusted: a body that
/// is not a Sensor Logger message is answered with an advisory failure (the stream goes on).
package struct SensorLoggerStream: Sendable {
  /// The convention given by the user, `nil` to detect it from the stream.
  package let givenConvention: SensorLoggerConverter.Convention?
  /// The name used in failure messages.
  package let source: String

  private var sequencer: SensorLoggerMessageSequencer
  private var converter: SensorLoggerConverter
  private var reorder: SampleReorderBuffer
  private var reportedSkippedMessages = 0
  /// Malformed bodies so far, reported each up to ten, then at 100, 1000, …: anyone on the
  /// network can send them, and one warning each would flood the log (3,801 in 3 s before
  /// 2026-11-27).
  private var malformedBodies = PowerOfTenReports(reportingEachUpTo: 10)
  /// The early-release total at which the next notice is due (powers of ten).
  private var earlyReleaseReports = PowerOfTenReports()
  /// The `deviceId` of the first message that had one, and whether a second one was reported.
  private var firstDeviceID: String?
  private var hasReportedSecondDevice = false
  /// When (wall seconds) the last Sensor Logger message arrived, `nil` before the first; and
  /// whether the silence since then was reported.
  private var lastMessageTime: Double?
  private var hasReportedSilence = false

  /// Creates a stream; the parameters are those of ``SensorLoggerMessageSequencer`` and
  /// ``SampleReorderBuffer``.
  package init(
    convention: SensorLoggerConverter.Convention?, messageReorderWindow: Double,
    sampleHoldTime: Double, maximumSampleDelay: Double, clock: PhoneStreamClock,
    source: String = "Sensor Logger receiver",
    maximumHeldReadings: Int = SensorLoggerMessageSequencer.defaultMaximumHeldReadings
  ) {
    givenConvention = convention
    self.source = source
    sequencer = SensorLoggerMessageSequencer(
      window: messageReorderWindow, maximumHeldReadings: maximumHeldReadings)
    converter = SensorLoggerConverter(convention: convention)
    reorder = SampleReorderBuffer(
      holdTime: sampleHoldTime, maximumDelay: maximumSampleDelay, clock: clock)
    reorder.maximumClockDistance = Self.maximumClockDistance
  }

  /// How far (seconds) a reading may lie from its arrival on the current clock mapping before it
  /// is dropped as implausible: a minute, well above a batch period and a network hiccup. Sensor
  /// Logger stamps readings with the phone's UTC time, which does not pause, so a reading years
  /// away (1970, or far in the future) is forged or broken.
  package static let maximumClockDistance = 60.0

  /// How long (wall seconds) without a message, once messages have come, before the silence is
  /// reported: the receiver cannot tell a recording stopped on the phone from a phone that left
  /// the network or a push stalled halfway, and a stream that stops without a word looks like a
  /// hang. Sensor Logger pushes every second or so by default; SensorServer's client gives up on a
  /// connection silent for as long.
  package static let silenceReportDelay = 10.0

  /// The reorder buffer's state (for diagnostics and tests).
  package var reorderBuffer: SampleReorderBuffer { reorder }

  /// The accelerometer or gyroscope the current recording does not stream (see
  /// ``SensorLoggerConverter/lackingSensors``).
  package var lackingSensors: SensorSet { converter.lackingSensors }

  /// How many messages were skipped for an id that cannot be sequenced.
  package var skippedMessageCount: Int { sequencer.skippedMessageCount }

  /// How many messages were passed on before their reorder window ended because the held
  /// messages reached the sequencer's bounds (see
  /// ``SensorLoggerMessageSequencer/earlyReleasedMessageCount``).
  package var earlyReleasedMessageCount: Int { sequencer.earlyReleasedMessageCount }

  /// The readings held by the message sequencer now (for diagnostics and tests).
  package var heldReadingCount: Int { sequencer.heldReadingCount }

  /// Takes one push body that arrived at wall time `now` (seconds, monotonic).
  ///
  /// - Returns: the events now due, and the failure that made the body unusable (`nil` when it
  ///   was a Sensor Logger message); the failure is also among the events, as advisory.
  package mutating func receive(
    body: [UInt8], now: Double
  ) -> (
    events: [SourceEvent], rejection: SourceFailure?
  ) {
    receive(Self.decode(body), now: now)
  }

  /// Decodes a push body: the costly, stateless part of ``receive(body:now:)``, which a transport
  /// runs before taking whatever lock guards the stream, so that one large body does not hold up
  /// the phone's pushes and the timer's ticks.
  package static func decode(_ body: [UInt8]) -> Result<SensorLoggerBatch, SourceFailure> {
    do {
      return .success(try SensorLoggerBatch(body: body))
    } catch {
      let reason = (error as? SourceFailure)?.message ?? "\(error)"
      return .failure(SourceFailure(.malformedData, reason, isFatal: false))
    }
  }

  /// Takes one decoded push body (see ``decode(_:)``) that arrived at wall time `now`; returns
  /// what ``receive(body:now:)`` does.
  package mutating func receive(
    _ decoded: Result<SensorLoggerBatch, SourceFailure>, now: Double
  ) -> (events: [SourceEvent], rejection: SourceFailure?) {
    let batch: SensorLoggerBatch
    switch decoded {
    case .success(let decodedBatch): batch = decodedBatch
    case .failure(let failure):
      // The sender gets every refusal in its answer; the log gets the first ten, then one at
      // each power of ten with the count.
      guard let total = malformedBodies.count() else { return (tick(now: now), failure) }
      let reported =
        total <= 10
        ? failure
        : SourceFailure(
          failure.kind, failure.message + " (\(total) malformed bodies so far)",
          isFatal: failure.isFatal)
      return ([.failure(reported)] + tick(now: now), failure)
    }
    var events: [SourceEvent] = secondDeviceNotice(batch).map { [.failure($0)] } ?? []
    // A message ends the silence: the next one is reported again.
    lastMessageTime = now
    hasReportedSilence = false
    let (inOrder, sessionChanged) = sequencer.accept(batch, now: now)
    if sessionChanged {
      // A new recording: finish the old one and forget its convention. The sample timeline (what
      // was delivered, the lead and clock-distance limits, the clock mapping) carries on: anyone
      // on the network can announce a new session, and forgetting it let one push deliver any
      // time (year 2100 on the phone's clock) or take timestamps back. A genuine new recording
      // fits the timeline (the phone's UTC clock ran on meanwhile); a different clock is
      // followed after `SampleReorderBuffer.resynchronisationCount` readings in a row.
      events += reorder.release(now: now, flushAll: true).map(SourceEvent.sample)
      converter.reset(keepingConvention: givenConvention)
    }
    events += process(inOrder, now: now)
    return (events + tick(now: now), nil)
  }

  /// The events due at wall time `now`: messages whose gap was given up on, samples whose hold
  /// time has passed, and notices.
  package mutating func tick(now: Double) -> [SourceEvent] {
    var events = process(sequencer.release(now: now), now: now)
    events += reorder.releaseEvents(now: now, source: source)
    if sequencer.skippedMessageCount > reportedSkippedMessages {
      reportedSkippedMessages = sequencer.skippedMessageCount
      events.append(
        .failure(
          SourceFailure(
            .malformedData,
            "\(source): \(reportedSkippedMessages) message(s) so far had a messageId that cannot be "
              + "sequenced (negative or too large) and were skipped", isFatal: false)))
    }
    if let notice = earlyReleaseNotice() { events.append(.failure(notice)) }
    if let notice = silenceNotice(now: now) { events.append(.failure(notice)) }
    return events
  }

  /// A notice, once per silence, when no message came for ``silenceReportDelay`` after one did;
  /// advisory and `.disconnected` (a gap), since the stream resumes with the next push.
  private mutating func silenceNotice(now: Double) -> SourceFailure? {
    guard let last = lastMessageTime, !hasReportedSilence, now - last >= Self.silenceReportDelay
    else { return nil }
    hasReportedSilence = true
    return SourceFailure(
      .disconnected,
      "\(source): no push from the phone for \(Self.silenceReportDelay) s (recording stopped, "
        + "or the phone left the network?); still listening", isFatal: false)
  }

  /// A notice when messages were passed on before their reorder window because too many
  /// messages or readings waited for gaps, or `nil`. Reported the first time and then each time
  /// the total reaches the next power of ten: a phone never gets here, and a sender that keeps
  /// doing it is visible without a notice per push.
  private mutating func earlyReleaseNotice() -> SourceFailure? {
    let count = sequencer.earlyReleasedMessageCount
    guard earlyReleaseReports.isDue(total: count) else { return nil }
    return SourceFailure(
      .other,
      "\(source): \(count) message(s) so far were passed on before their reorder window ended, "
        + "because more than \(SensorLoggerMessageSequencer.maximumHeldMessages) messages or "
        + "\(sequencer.maximumHeldReadings) readings were waiting for missing ones", isFatal: false)
  }

  /// A notice, once, when a message comes from another `deviceId` than the first: two phones
  /// pushing to one receiver interleave two recordings, each message of one looks like a new
  /// session after the other's, and their clocks differ, so many samples are dropped as late and
  /// the rest mix two phones' motion. Their messages are still taken (a phone that was reinstalled
  /// sends a new id too); the notice says what the late drops that follow mean.
  private mutating func secondDeviceNotice(_ batch: SensorLoggerBatch) -> SourceFailure? {
    guard let device = batch.deviceID, !hasReportedSecondDevice else { return nil }
    guard let first = firstDeviceID else {
      firstDeviceID = device
      return nil
    }
    guard device != first else { return nil }
    hasReportedSecondDevice = true
    return SourceFailure(
      .other,
      "\(source): messages from a second phone, deviceId "
        + "\(printableExcerpt(device, maximumCharacters: 60)), besides deviceId "
        + "\(printableExcerpt(first, maximumCharacters: 60)); one receiver takes one phone, so their "
        + "samples mix and many are dropped as late: give each phone a receiver on its own port",
      isFatal: false)
  }

  /// Everything still held, in order (when the receiver stops).
  package mutating func flush(now: Double) -> [SourceEvent] {
    var events = process(sequencer.release(now: now, flushAll: true), now: now)
    events += reorder.release(now: now, flushAll: true).map(SourceEvent.sample)
    return events
  }

  private mutating func process(_ batches: [SensorLoggerBatch], now: Double) -> [SourceEvent] {
    var events: [SourceEvent] = []
    for batch in batches {
      let (samples, failures) = converter.convert(batch)
      events += failures.map(SourceEvent.failure)
      reorder.insert(samples, now: now)
    }
    return events
  }
}
