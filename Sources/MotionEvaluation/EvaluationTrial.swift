// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath
import MotionSensors

/// One recording with ground truth, held in flat arrays for fast evaluation runs.
///
/// Reference attitudes are sensor to OpenCoreMotion's NWU earth frame (BROAD's ENU reference is
/// rotated once on loading); `nil` where the reference was missing (occluded markers).
public struct EvaluationTrial: Sendable {
  /// The trial's name (file name without extension).
  public var name: String
  /// Sample times, s.
  public var timestamps: [Double]
  /// Raw gyroscope, rad/s.
  public var gyroscope: [SIMD3<Double>]
  /// Specific force, m/s².
  public var accelerometer: [SIMD3<Double>]
  /// Raw magnetometer, µT.
  public var magnetometer: [SIMD3<Double>]
  /// Ground truth, sensor to NWU earth.
  public var reference: [Quaternion?]
  /// Whether each sample belongs to the evaluated movement phase.
  public var isMovementPhase: [Bool]

  /// Creates a trial from its columns (all arrays of equal length).
  public init(
    name: String, timestamps: [Double], gyroscope: [SIMD3<Double>], accelerometer: [SIMD3<Double>],
    magnetometer: [SIMD3<Double>], reference: [Quaternion?], isMovementPhase: [Bool]
  ) {
    self.name = name
    self.timestamps = timestamps
    self.gyroscope = gyroscope
    self.accelerometer = accelerometer
    self.magnetometer = magnetometer
    self.reference = reference
    self.isMovementPhase = isMovementPhase
  }

  /// Number of samples.
  public var count: Int { timestamps.count }

  /// The median sample spacing, s (the nominal sample period).
  public var samplePeriod: Double {
    guard count > 2 else { return 0.01 }
    var steps: [Double] = []
    steps.reserveCapacity(Swift.min(count - 1, 1000))
    for i in 1..<Swift.min(count, 1001) { steps.append(timestamps[i] - timestamps[i - 1]) }
    steps.sort()
    return steps[steps.count / 2]
  }

  /// Errors turning a recording into a trial.
  public enum LoadError: Error, CustomStringConvertible {
    case missingSensors(String)
    public var description: String {
      switch self {
      case .missingSensors(let path):
        return "\(path): every sample needs gyroscope and accelerometer readings"
      }
    }
  }

  /// A trial from recorded samples (each with gyroscope and accelerometer; the magnetometer and
  /// the ground-truth attitude may be missing on some samples). Samples without a movement flag
  /// count as movement.
  public init(name: String, samples: [MotionSample]) throws {
    var columns = Columns()
    columns.reserveCapacity(samples.count)
    for sample in samples {
      guard columns.append(sample) else { throw LoadError.missingSensors(name) }
    }
    self = columns.trial(name: name)
  }

  /// Reads a recording with ground truth (BROAD or OpenCoreMotion CSV, detected from the header)
  /// through `MotionSensors.RecordingReader`. The reference is in NWU, as the reader delivers it.
  ///
  /// The samples go straight from the reader's stream into the trial's flat arrays: the
  /// evaluation needs the whole trial (offline modes run backward, and every mode and rate reuses
  /// it), but not a second copy of it as `MotionSample`s, which are several times larger.
  public static func load(path: String) throws -> EvaluationTrial {
    let url = URL(fileURLWithPath: path)
    let name = url.deletingPathExtension().lastPathComponent
    var stream = try RecordingReader.open(url)
    var columns = Columns()
    while let sample = try stream.next() {
      guard columns.append(sample) else { throw LoadError.missingSensors(name) }
    }
    return columns.trial(name: name)
  }

  /// The flat arrays a trial is made of, filled one sample at a time.
  private struct Columns {
    var t: [Double] = []
    var g: [SIMD3<Double>] = []
    var a: [SIMD3<Double>] = []
    var m: [SIMD3<Double>] = []
    var r: [Quaternion?] = []
    var mv: [Bool] = []

    mutating func reserveCapacity(_ count: Int) {
      t.reserveCapacity(count)
      g.reserveCapacity(count)
      a.reserveCapacity(count)
      m.reserveCapacity(count)
      r.reserveCapacity(count)
      mv.reserveCapacity(count)
    }

    /// Appends `sample`; `false` (and nothing appended) when it lacks the gyroscope or the
    /// accelerometer.
    mutating func append(_ sample: MotionSample) -> Bool {
      guard let gyroscope = sample.gyroscope, let accelerometer = sample.accelerometer else {
        return false
      }
      t.append(sample.timestamp)
      g.append(gyroscope)
      a.append(accelerometer)
      // A missing magnetometer reading becomes zero, which the estimator skips.
      m.append(sample.magnetometer ?? .zero)
      r.append(sample.groundTruth?.earthFromSensor)
      mv.append(sample.groundTruth?.isMovementPhase ?? true)
      return true
    }

    func trial(name: String) -> EvaluationTrial {
      EvaluationTrial(
        name: name, timestamps: t, gyroscope: g, accelerometer: a, magnetometer: m, reference: r,
        isMovementPhase: mv)
    }
  }
}
