// SPDX-License-Identifier: Apache-2.0

/// Rebuilds the accelerometer from two streams: user acceleration plus gravity, for exports without
/// a raw accelerometer file.
///
/// Each user-acceleration sample is paired with the gravity sample nearest to it in time (the
/// earlier one on a tie) within ``maximumPairingGap``. Android writes the two files on timestamps
/// of their own, a few milliseconds apart; pairing only equal timestamps left such an export with
/// no accelerometer at all, silently. Gravity turns with the phone's attitude only, so a few
/// milliseconds between the two change the sum by far less than the sensor's noise.
///
/// A sample without a value, or without a gravity sample close enough, is left out and counted in
/// ``skippedRowCount``; when not one sample could be paired the stream ends with an error instead
/// of an empty accelerometer.
struct SummedAccelerometerStream: RecordingRowStream {
  /// The largest time between a user-acceleration sample and the gravity sample added to it, in
  /// milliseconds (20): twice the period at 100 Hz, so two 50 Hz files ticking out of phase still
  /// pair.
  static let maximumPairingGapMilliseconds = 20
  /// ``maximumPairingGapMilliseconds`` in seconds.
  static var maximumPairingGap: Double { Double(maximumPairingGapMilliseconds) / 1000 }

  let descriptor: StreamDescriptor
  private var user: any RecordingRowStream
  private var gravity: any RecordingRowStream
  private let userFile: String
  private let gravityFile: String

  /// The latest gravity sample at or before the current user-acceleration sample.
  private var earlierGravity: (time: Double, value: SIMD3<Double>)?
  /// The first gravity sample after it, read ahead.
  private var laterGravity: (time: Double, value: SIMD3<Double>)?
  private var gravityEnded = false

  /// Rows of either file without an accelerometer value.
  private var incompleteRowCount = 0
  /// User-acceleration samples without a gravity sample within ``maximumPairingGap``.
  private var unpairedCount = 0
  private var pairedCount = 0

  /// Pairs `user` (user acceleration, read from `userFile`) with `gravity` (from `gravityFile`);
  /// the file names are for the error when nothing pairs.
  init(
    _ user: any RecordingRowStream, _ gravity: any RecordingRowStream,
    userFile: String, gravityFile: String, descriptor: StreamDescriptor
  ) {
    self.user = user
    self.gravity = gravity
    self.userFile = userFile
    self.gravityFile = gravityFile
    self.descriptor = descriptor
  }

  var skippedRowCount: Int {
    user.skippedRowCount + gravity.skippedRowCount + incompleteRowCount + unpairedCount
  }

  mutating func next() throws -> MotionSample? {
    while let sample = try user.next() {
      guard let acceleration = sample.accelerometer else {
        incompleteRowCount += 1
        continue
      }
      try readGravity(through: sample.timestamp)
      if let g = nearestGravity(to: sample.timestamp) {
        pairedCount += 1
        return MotionSample(timestamp: sample.timestamp, accelerometer: acceleration + g)
      }
      unpairedCount += 1
    }
    if pairedCount == 0 && unpairedCount > 0 {
      throw RecordingError(
        .malformedRow, file: userFile,
        "none of its \(unpairedCount) samples has a sample of \(gravityFile) within "
          + "\(Self.maximumPairingGapMilliseconds) ms, "
          + "so no accelerometer reading can be rebuilt from user acceleration plus gravity")
    }
    return nil
  }

  /// Reads gravity samples until the one read ahead is later than `time`.
  private mutating func readGravity(through time: Double) throws {
    while true {
      if laterGravity == nil && !gravityEnded {
        while let sample = try gravity.next() {
          if let value = sample.accelerometer {
            laterGravity = (sample.timestamp, value)
            break
          }
          incompleteRowCount += 1
        }
        if laterGravity == nil { gravityEnded = true }
      }
      guard let later = laterGravity, later.time <= time else { return }
      earlierGravity = later
      laterGravity = nil
    }
  }

  /// The gravity value nearest to `time` within the gap, the earlier one on a tie.
  private func nearestGravity(to time: Double) -> SIMD3<Double>? {
    var best: (distance: Double, value: SIMD3<Double>)?
    if let earlier = earlierGravity {
      best = (time - earlier.time, earlier.value)
    }
    if let later = laterGravity, best.map({ later.time - time < $0.distance }) ?? true {
      best = (later.time - time, later.value)
    }
    guard let best, best.distance <= Self.maximumPairingGap else { return nil }
    return best.value
  }
}
