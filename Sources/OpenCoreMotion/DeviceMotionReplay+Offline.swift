// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionFusion
import MotionMath
import MotionSensors

extension DeviceMotionReplay {
  /// Fuses a whole recording non-causally (`motionctl replay --offline`): every attitude is
  /// estimated with the whole recording in view (MotionFusion's `OfflineAttitudeEstimator`:
  /// forward, backward and forward passes blended), which is more accurate than any real-time
  /// filter but only possible after the fact.
  ///
  /// One update per gyroscope sample (with the latest accelerometer and magnetometer values, as in
  /// real time). The rotation rate is corrected by the gyroscope bias a forward pass has converged
  /// to over the whole recording; gravity and user acceleration follow from the offline attitude.
  ///
  /// - Throws: ``Failure`` when the stream is malformed, has no usable samples or cannot provide
  ///   `frame`; what `body` throws.
  @discardableResult
  public static func runOffline(
    _ stream: some SampleStream,
    frame: CMAttitudeReferenceFrame = .xArbitraryZVertical,
    declination: Double? = nil,
    body: (CMDeviceMotion) throws -> Void
  ) throws -> Summary {
    try checkAvailability(of: frame, in: stream.descriptor, declination: declination)
    var stream = stream
    let usesMagnetometer = frame.needsMagnetometer

    // Gather synchronised inputs: one row per gyroscope sample whose time moves forward, held in
    // single precision (44 bytes per nine-axis sample; see `OfflineAttitudeRecording`).
    var recording = OfflineAttitudeRecording(hasMagnetometer: usesMagnetometer)
    var latestAccelerometer: SIMD3<Double>?
    var latestMagnetometer: SIMD3<Double>?
    do {
      while let sample = try stream.next() {
        if let a = sample.accelerometer, a.isFinite { latestAccelerometer = a }
        if let m = sample.magnetometer, m.isFinite { latestMagnetometer = m }
        guard let g = sample.gyroscope, let a = latestAccelerometer else { continue }
        if usesMagnetometer && latestMagnetometer == nil { continue }
        // Refused (and left out of the output): a time that does not move forward, a reading
        // beyond single precision's range.
        recording.append(
          timestamp: sample.timestamp, gyroscope: g, accelerometer: a,
          magnetometer: usesMagnetometer ? latestMagnetometer : nil)
      }
    } catch {
      throw Failure(description: "\(stream.descriptor.name): \(error)")
    }
    let count = recording.count
    guard count >= 2 else {
      throw Failure(
        description:
          "\(stream.descriptor.name) has too few samples with both accelerometer and gyroscope")
    }
    let samplePeriod =
      (recording.timestamp(at: count - 1) - recording.timestamp(at: 0)) / Double(count - 1)

    // The bias is the one a forward pass over everything converged to: the best constant
    // estimate the whole recording gives.
    let attitudes = OfflineAttitudeEstimator.estimate(recording, samplePeriod: samplePeriod)

    let aligner = ReferenceFrameAligner(frame: frame, declination: declination ?? 0)
    var summary = Summary()
    for i in 0..<count {
      let attitude = attitudes[i]
      let estimate = DeviceMotionPipeline.Estimate(
        timestamp: recording.timestamp(at: i), earthFromSensor6D: attitude,
        earthFromSensor9D: attitude, hasMagneticHeading: usesMagnetometer,
        gyroscope: recording.gyroscope(at: i), gyroscopeBias: attitudes.gyroscopeBias,
        accelerometer: recording.accelerometer(at: i), calibratedMagneticField: nil,
        magneticCalibrationAccuracy: .uncalibrated, needsCalibrationMotion: false)
      guard aligner.accepts(estimate), let motion = aligner.deviceMotion(from: estimate) else {
        continue
      }
      try body(motion)
      summary.deviceMotionCount += 1
    }
    return summary
  }
}
