// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionSensors

/// Records the dashboard's source to OpenCoreMotion CSV files on the server, under one directory.
///
/// The page never names a path: it may suggest a file name, which is reduced to a safe base name
/// (letters, digits, `.`, `_`, `-`; no leading dot; at most 64 characters) and placed in
/// ``directory``. The directory is created with mode 0700 and each finished file gets mode 0600,
/// so other users can read neither the file nor its partial copy.
package final class DashboardRecorder: Sendable {
  /// Where recordings go.
  package let directory: URL
  private let logger = Logger(label: "MotionDashboard.recorder")
  private let current = Locked<Recording?>(nil)

  /// A recording in progress. `@unchecked Sendable`: only touched with `current`'s lock held,
  /// or by ``stop()`` once it has taken the recording out of `current` (no one else can reach
  /// it then).
  private final class Recording: @unchecked Sendable {
    let writer: RecordingWriter
    let started: Date
    var failure: String?
    init(writer: RecordingWriter) {
      self.writer = writer
      started = Date()
    }
  }

  /// The recorder's state for the page.
  package struct Status: Sendable, Equatable {
    package var isRecording: Bool
    package var file: String?
    package var samples: Int
    package var message: String?
  }

  private let lastMessage = Locked<String?>(nil)
  private let lastFile = Locked<String?>(nil)

  package init(directory: URL) {
    self.directory = directory
  }

  /// A safe file name from the page's suggestion, or a dated default.
  package static func safeFileName(_ suggestion: String?, now: Date = Date()) -> String {
    let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
    var name = String((suggestion ?? "").filter { allowed.contains($0) }.prefix(64))
    while name.hasPrefix(".") { name.removeFirst() }
    if name.isEmpty || name == "csv" {
      let formatter = DateFormatter()
      formatter.locale = Locale(identifier: "en_US_POSIX")
      formatter.dateFormat = "yyyyMMdd-HHmmss"
      name = "dashboard-" + formatter.string(from: now)
    }
    if !name.lowercased().hasSuffix(".csv") { name += ".csv" }
    return name
  }

  /// Starts recording `source`'s samples to a new file; an existing file is never replaced.
  package func start(source: any SensorSource, suggestedName: String?) -> Status {
    let message: String? = current.withLock { recording in
      if recording != nil { return "already recording" }
      do {
        try FileManager.default.createDirectory(
          at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let url = directory.appendingPathComponent(Self.safeFileName(suggestedName))
        if FileManager.default.fileExists(atPath: url.path) {
          return "\(url.lastPathComponent) exists already"
        }
        let descriptor = StreamDescriptor(
          name: source.name, sensors: source.availableSensors,
          nominalSampleRate: source.supportedSampleRates.upperBound,
          metadata: ["recorded-by": "motionctl dashboard"])
        recording = Recording(writer: try RecordingWriter(url: url, descriptor: descriptor))
        lastFile.withLock { $0 = url.lastPathComponent }
        return nil
      } catch {
        logger.error("cannot start a recording: \(error)")
        return "cannot start a recording: \(error)"
      }
    }
    lastMessage.withLock { $0 = message }
    return status
  }

  /// Finishes the recording in progress (the file appears complete, mode 0600).
  ///
  /// The file is finished (flushed, synced to disk, renamed) after the recording is taken out of
  /// ``current``, not under its lock: the frame broadcast reads ``status`` on an event loop, and
  /// a sync on a slow card took seconds. Once taken out, no sample reaches the writer. Callers
  /// start and stop one at a time (the hub's actor): a start of the same name during a stop's
  /// finish would not yet see the file it replaces.
  package func stop() -> Status {
    let taken = current.withLock { recording -> Recording? in
      defer { recording = nil }
      return recording
    }
    let message: String
    if let active = taken {
      do {
        try active.writer.finish()
        try FileManager.default.setAttributes(
          [.posixPermissions: 0o600], ofItemAtPath: active.writer.url.path)
        message =
          active.failure
          ?? "saved \(active.writer.url.lastPathComponent) (\(active.writer.sampleCount) samples)"
      } catch {
        logger.error("cannot finish the recording: \(error)")
        message = "cannot finish the recording: \(error)"
      }
    } else {
      message = "not recording"
    }
    lastMessage.withLock { $0 = message }
    return status
  }

  /// Appends one sample when recording; a write error ends the recording with a message.
  package func append(_ sample: MotionSample) {
    current.withLock { recording in
      guard let active = recording, active.failure == nil else { return }
      do {
        try active.writer.append(sample)
      } catch {
        active.failure = "recording stopped: \(error)"
        active.writer.cancel()
        recording = nil
        lastMessage.withLock { $0 = "recording stopped: \(error)" }
      }
    }
  }

  package var status: Status {
    let (isRecording, samples) = current.withLock { ($0 != nil, $0?.writer.sampleCount ?? 0) }
    return Status(
      isRecording: isRecording, file: lastFile.withLock { $0 }, samples: samples,
      message: lastMessage.withLock { $0 })
  }
}
