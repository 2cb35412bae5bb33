// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionEvaluation
import MotionSensors
import OpenCoreMotion

extension EvaluateCommand {
  /// `--apple-agreement` on one file: the MotionSense layout as before; any other recording that
  /// carries Core Motion's device motion (a SensorLog log with its `motion…` columns, a
  /// device-motion CSV) through ``appleAgreementByReplay(path:detected:)``.
  func appleAgreementTrial(path: String) throws -> FusionAppleAgreement.Trial {
    // A recording a reader detects (SensorLog, a zip of one, a device-motion CSV) is replayed;
    // the MotionSense layout is a plain table that no reader claims.
    let detected = try? RecordingFormat.detect(URL(fileURLWithPath: path))
    if let detected, Self.replayedFormats.contains(detected) {
      try refuseLayoutOnlyOptions(path: path, reason: "it is a \(detected.rawValue) recording")
      guard let trial = try Self.appleAgreementByReplay(path: path, detected: true) else {
        throw CLIError(
          "\(path): this \(detected.rawValue) recording logs no Apple device motion to compare with"
        )
      }
      return trial
    }
    do {
      return try FusionAppleAgreement.evaluateDeviceMotion(
        path: path, decimation: decimate, overrides: overrides)
    } catch FusionAppleAgreement.Failure.missingColumns(_, let missing) {
      // Not the MotionSense layout. Another recording with Apple's device motion is replayed
      // (with the default estimator, so without the options that only the layout takes); a
      // file with neither gets an error that names both.
      try refuseLayoutOnlyOptions(
        path: path, reason: "this file lacks \(missing.joined(separator: ", "))")
      guard let trial = try Self.appleAgreementByReplay(path: path) else {
        throw CLIError(
          "\(path): no Apple device motion to compare with: neither the MotionSense layout "
            + "(missing \(missing.joined(separator: ", "))) nor a recording that logs Core "
            + "Motion's gravity (SensorLog with its motion columns, a device-motion CSV)")
      }
      return trial
    }
  }

  /// The formats whose recordings can carry Core Motion's device motion beside the sensors.
  static let replayedFormats: Set<RecordingFormat> = [.sensorLog, .deviceMotion]

  /// `--decimate` and `--set` apply to the MotionSense layout only: a replayed recording is
  /// fused as `CMMotionManager` fuses it.
  func refuseLayoutOnlyOptions(path: String, reason: String) throws {
    guard decimate == 1, overrides.isEmpty else {
      throw CLIError(
        "\(path): --decimate and --set apply to the MotionSense layout (\(reason)); other "
          + "recordings are replayed as Core Motion would fuse them")
    }
  }

  /// The files `--apple-agreement` reads from `paths`: as given, folders expanded to their CSV
  /// files and zip archives (SensorLog exports its logs zipped) in name order.
  static func appleAgreementFiles(in paths: [String]) -> [String] {
    FusionEvaluation.trialFiles(in: paths) {
      $0.lowercased().hasSuffix(".csv") || $0.lowercased().hasSuffix(".zip")
    }
  }

  /// Replays a recording that logs Core Motion's device motion beside its sensors through the
  /// same fusion as `CMMotionManager` (``DeviceMotionReplay``, `.xArbitraryZVertical`), and
  /// compares each of Apple's logged gravity instants with our update nearest in time
  /// (``GravityAgreementMatcher``). The sensors keep their own clocks (SensorLog logs each group
  /// with its own timestamps), as they would reach the fusion live.
  ///
  /// Returns `nil` when the recording carries no device motion of Apple's (or, unless its format
  /// was `detected`, when no reader knows it; a detected recording's reading error is thrown as
  /// the reader words it, such as an archive holding several logs). The centred reference
  /// needs one uniform row clock for rates and accelerations, so its figures are left out here.
  static func appleAgreementByReplay(
    path: String, detected: Bool = false
  ) throws -> FusionAppleAgreement.Trial? {
    let url = URL(fileURLWithPath: path)
    let recording: RecordingStream
    do {
      recording = try RecordingReader.open(url)
    } catch let error as RecordingError where error.kind == .unknownFormat && !detected {
      return nil  // no reader knows it, so it logs no device motion we can read
    }
    let descriptor = recording.descriptor
    guard descriptor.hasGroundTruth,
      descriptor.metadata["groundTruthSource"]?.contains("Apple") == true
    else { return nil }
    let instants = AppleGravityInstants()
    var matcher = GravityAgreementMatcher()
    let summary = try DeviceMotionReplay.run(
      AppleGravityTap(base: recording, instants: instants), frame: .xArbitraryZVertical
    ) { motion in
      for (time, gravity) in instants.take() { matcher.appendApple(time: time, gravity: gravity) }
      let gravity = motion.gravity
      matcher.appendEstimate(
        time: motion.timestamp, gravity: SIMD3(gravity.x, gravity.y, gravity.z))
    }
    for (time, gravity) in instants.take() { matcher.appendApple(time: time, gravity: gravity) }
    let name = url.deletingPathExtension().lastPathComponent
    guard let trial = matcher.finish(name: name) else {
      throw CLIError(
        "\(path): no update of ours within \(matcher.tolerance) s of Apple's device-motion "
          + "instants (\(summary.deviceMotionCount) updates, \(matcher.unmatchedCount) instants)")
    }
    // Left out, not lost: what the comparison could not use is said beside its figures.
    var leftOut: [String] = []
    if matcher.unmatchedCount > 0 {
      leftOut.append(
        "\(matcher.unmatchedCount) of Apple's instants with no update of ours within "
          + "\(matcher.tolerance) s")
    }
    if summary.refusedSampleCount > 0 {
      leftOut.append("\(summary.refusedSampleCount) samples the estimator refused")
    }
    if !leftOut.isEmpty {
      printToStandardError(
        "\(path): compared \(trial.count); left out " + leftOut.joined(separator: ", "))
    }
    return trial
  }
}

/// Apple's gravity instants read from a recording, handed from the stream (read by the replay's
/// player) to the replay's update handler. Both run on the replay's thread; the lock makes the
/// hand-over safe whatever thread the player reads on.
private final class AppleGravityInstants: Sendable {
  private let instants = Locked<[(Double, SIMD3<Double>)]>([])

  func append(time: Double, gravity: SIMD3<Double>) {
    instants.withLock { $0.append((time, gravity)) }
  }

  /// The instants appended since the last call, oldest first.
  func take() -> [(Double, SIMD3<Double>)] {
    instants.withLock { current in
      defer { current.removeAll(keepingCapacity: true) }
      return current
    }
  }
}

/// Passes a recording's samples on unchanged, noting each one's Apple gravity (its
/// ``GroundTruth/gravity``, pointing down) as it is read.
private struct AppleGravityTap: SampleStream {
  var base: RecordingStream
  let instants: AppleGravityInstants

  var descriptor: StreamDescriptor { base.descriptor }

  mutating func next() throws -> MotionSample? {
    guard let sample = try base.next() else { return nil }
    if let gravity = sample.groundTruth?.gravity {
      instants.append(time: sample.timestamp, gravity: gravity)
    }
    return sample
  }
}
