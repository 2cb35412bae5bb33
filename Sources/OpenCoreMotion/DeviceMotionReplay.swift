// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

/// Fuses a whole recording or simulation as fast as possible, synchronously, into device motion:
/// the same fusion pipeline and frame handling as ``CMMotionManager``, without queues or pacing.
///
/// An addition to Apple's API (Core Motion has no replay); `motionctl replay` is built on it.
public enum DeviceMotionReplay {
  /// What a replay did.
  public struct Summary: Sendable, Equatable {
    /// Device-motion values produced (one per gyroscope sample the estimator accepted).
    public var deviceMotionCount = 0
    /// Advisory (non-fatal) source failures met and passed over.
    public var advisoryFailureCount = 0
    /// Samples handed to the estimator: each gyroscope sample once an accelerometer reading is
    /// known.
    public var fusionInputCount = 0
    /// Of ``fusionInputCount``, the samples that produced no update: values beyond a sensor's
    /// physical range (a log in deg/s read as rad/s) or not finite, timestamps that do not move
    /// forward (a repeated row), or (offline) beyond single precision. Reported so that a caller
    /// can say what was left out instead of losing it silently.
    public var refusedSampleCount = 0
  }

  /// An error that ended a replay: the stream's own error message, or the frame being unavailable.
  public struct Failure: Error, CustomStringConvertible, Equatable {
    public var description: String
  }

  /// Runs `stream` through the device-motion pipeline and calls `body` once per update, in order.
  ///
  /// - Parameters:
  ///   - stream: the samples (a recording, a simulation).
  ///   - frame: the attitude reference frame; a north frame needs magnetometer data.
  ///   - declination: degrees east of true north, used by `.xTrueNorthZVertical` only.
  ///   - body: receives each update; throwing from it stops the replay and rethrows.
  /// - Throws: ``Failure`` when the stream is malformed or the frame cannot be provided, or what
  ///   `body` throws.
  @discardableResult
  public static func run(
    _ stream: some SampleStream,
    frame: CMAttitudeReferenceFrame = .xArbitraryZVertical,
    declination: Double? = nil,
    body: (CMDeviceMotion) throws -> Void
  ) throws -> Summary {
    try checkAvailability(of: frame, in: stream.descriptor, declination: declination)
    // Counts the samples the estimator is given, so that those it refuses (the pipeline hands
    // over estimates only) can be told from those it took.
    let inputs = FusionInputCount()
    // A virtual clock moved to the end of time plays the whole stream on this thread, through the
    // very pipeline a manager uses.
    let clock = VirtualClock()
    let player = StreamPlayer(
      FusionInputCountingStream(base: stream, count: inputs), pacing: .virtual(clock))
    let pipeline = DeviceMotionPipeline.shared(for: player)
    let aligner = ReferenceFrameAligner(frame: frame, declination: declination ?? 0)
    let collected = Locked<
      (
        updates: [CMDeviceMotion], failure: String?, finished: Bool, advisoryFailureCount: Int,
        estimates: Int
      )
    >(
      ([], nil, false, 0, 0))
    let subscription = pipeline.subscribe { event in
      collected.withLock { c in
        switch event {
        case .estimate(let estimate):
          c.estimates += 1
          if let motion = aligner.deviceMotion(from: estimate) { c.updates.append(motion) }
        case .failure(let failure) where failure.isFatal:
          c.failure = c.failure ?? failure.message
        case .failure:
          c.advisoryFailureCount += 1
        case .finished:
          c.finished = true
        }
      }
    }
    defer { subscription.cancel() }

    var summary = Summary()
    // Advance in slices so that updates are handed to `body` while the file is being read, keeping
    // memory flat for long recordings. A time gap is jumped in one step to the next sample's due
    // time (slicing through a 10⁹ s gap took 10⁸ steps, and at 10¹⁸ s `horizon + 10` stops moving);
    // each step therefore delivers at least one sample or ends the stream.
    var horizon = 0.0
    while true {
      horizon += 10
      if let due = player.nextDueClockTime(), due > horizon { horizon = due }
      clock.advance(to: horizon)
      let (updates, failure, finished, advisory, estimates) = collected.withLock {
        c -> ([CMDeviceMotion], String?, Bool, Int, Int) in
        defer { c.updates.removeAll(keepingCapacity: true) }
        return (c.updates, c.failure, c.finished, c.advisoryFailureCount, c.estimates)
      }
      summary.advisoryFailureCount = advisory
      for motion in updates {
        try body(motion)
        summary.deviceMotionCount += 1
      }
      if let failure { throw Failure(description: failure) }
      if finished {
        // Every sample read has been through the estimator by now (the stream ended).
        summary.fusionInputCount = inputs.value
        summary.refusedSampleCount = Swift.max(0, inputs.value - estimates)
        return summary
      }
    }
  }
}

/// How many samples a replay handed to the estimator; written by the player's reads and read by
/// the replay after the stream ended (on one thread under the virtual clock; locked anyway).
private final class FusionInputCount: Sendable {
  private let count = Locked(0)
  var value: Int { count.withLock { $0 } }
  func increment() { count.withLock { $0 += 1 } }
}

/// A stream that counts the samples ``DeviceMotionFeed`` hands to the estimator: those with a
/// gyroscope reading once a finite accelerometer reading has been seen (the feed's own rule).
private struct FusionInputCountingStream<Base: SampleStream>: SampleStream {
  var base: Base
  let count: FusionInputCount
  private var hasAccelerometer = false

  init(base: Base, count: FusionInputCount) {
    self.base = base
    self.count = count
  }

  var descriptor: StreamDescriptor { base.descriptor }

  mutating func next() throws -> MotionSample? {
    guard let sample = try base.next() else { return nil }
    if let accelerometer = sample.accelerometer, accelerometer.isFinite { hasAccelerometer = true }
    if sample.gyroscope != nil, hasAccelerometer { count.increment() }
    return sample
  }
}

extension DeviceMotionReplay {
  /// Throws when `frame` cannot be provided for a stream described by `descriptor`.
  static func checkAvailability(
    of frame: CMAttitudeReferenceFrame, in descriptor: StreamDescriptor, declination: Double?
  ) throws {
    guard frame.isSingleFrame else {
      throw Failure(description: "\(frame.rawValue) is not a single reference frame")
    }
    let sensors = descriptor.sensors
    guard
      CMMotionManager.attitudeReferenceFrames(sensors: sensors, declination: declination).contains(
        frame)
    else {
      if !sensors.isSuperset(of: .inertial) {
        throw Failure(
          description:
            "\(descriptor.name) lacks the accelerometer and gyroscope device motion needs")
      }
      if frame.needsMagnetometer, !sensors.contains(.magnetometer) {
        throw Failure(
          description: "\(descriptor.name) has no magnetometer, which frame \(frame.name) needs")
      }
      throw Failure(description: "true north needs a location for the magnetic declination")
    }
  }
}

extension CMAttitudeReferenceFrame {
  /// Apple's name of a single frame (`xArbitraryZVertical`, …), for messages.
  public var name: String {
    switch self {
    case .xArbitraryZVertical: return "xArbitraryZVertical"
    case .xArbitraryCorrectedZVertical: return "xArbitraryCorrectedZVertical"
    case .xMagneticNorthZVertical: return "xMagneticNorthZVertical"
    case .xTrueNorthZVertical: return "xTrueNorthZVertical"
    default: return "CMAttitudeReferenceFrame(rawValue: \(rawValue))"
    }
  }
}
