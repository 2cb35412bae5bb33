// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionFusion
import MotionMath
import MotionSensors

extension DeviceMotionReplay {
  /// Where ``runOffline(_:frame:declination:storage:body:)`` keeps the recording and the
  /// estimator's passes while it works.
  public enum OfflineStorage: Sendable {
    /// In memory: 84 bytes per nine-axis sample (68 per six-axis one) at the peak, so memory
    /// grows with the recording (an hour at 100 Hz: 30 MB).
    case memory
    /// In unnamed temporary files in `$TMPDIR` (else `/tmp`), unlinked at once so nothing is left
    /// behind: 88 bytes per sample on disk, about 3 MiB of memory whatever the recording's
    /// length. The passes walk the files in order, one 1 MiB block at a time. When `$TMPDIR` is a
    /// RAM-backed tmpfs the files are in memory after all: point it at a disk.
    case temporaryFiles
  }

  /// Fuses a whole recording non-causally (`motionctl replay --offline`): every attitude is
  /// estimated with the whole recording in view (MotionFusion's `OfflineAttitudeEstimator`:
  /// forward, backward and forward passes blended), which is more accurate than any real-time
  /// filter but only possible after the fact.
  ///
  /// One update per gyroscope sample (with the latest accelerometer and magnetometer values, as in
  /// real time). The samples are placed in time as the stream's
  /// ``MotionSensors/StreamDescriptor/sampleTiming`` says, with the same estimator parameters as
  /// the real-time replay: raw sensor outputs (interval means) by default, Core Motion's
  /// device-motion outputs (a device-motion CSV, a SensorLog log of device motion alone) as the
  /// instants they are. The rotation rate is corrected by the gyroscope bias a forward pass has
  /// converged to over the whole recording; gravity and user acceleration follow from the offline
  /// attitude. Both storages give the same updates, bit for bit.
  ///
  /// - Throws: ``Failure`` when the stream is malformed, has no usable samples or cannot provide
  ///   `frame`, or when a temporary file cannot be created, written or read; what `body` throws.
  @discardableResult
  public static func runOffline(
    _ stream: some SampleStream,
    frame: CMAttitudeReferenceFrame = .xArbitraryZVertical,
    declination: Double? = nil,
    storage: OfflineStorage = .memory,
    body: (CMDeviceMotion) throws -> Void
  ) throws -> Summary {
    try runOffline(
      stream, frame: frame, declination: declination, storage: storage,
      blockByteCount: 1 << 20, body: body)
  }

  /// ``runOffline(_:frame:declination:storage:body:)`` with the block size of the temporary
  /// files chosen (tests use small blocks to cross many of them).
  @discardableResult
  static func runOffline(
    _ stream: some SampleStream,
    frame: CMAttitudeReferenceFrame,
    declination: Double?,
    storage: OfflineStorage,
    blockByteCount: Int,
    body: (CMDeviceMotion) throws -> Void
  ) throws -> Summary {
    try checkAvailability(of: frame, in: stream.descriptor, declination: declination)
    let usesMagnetometer = frame.needsMagnetometer
    let name = stream.descriptor.name
    let parameters = stream.descriptor.sampleTiming.attitudeEstimatorParameters
    switch storage {
    case .memory:
      var recording = OfflineAttitudeRecording(hasMagnetometer: usesMagnetometer)
      let inputs = try gatherOfflineInputs(from: stream, usesMagnetometer: usesMagnetometer) {
        recording.append(
          timestamp: $0.timestamp, gyroscope: $0.gyroscope, accelerometer: $0.accelerometer,
          magnetometer: $0.magnetometer, accelerometerAge: $0.accelerometerAge,
          magnetometerAge: $0.magnetometerAge)
      }
      let unset = SinglePrecisionQuaternion(.identity)
      var backward = [SinglePrecisionQuaternion](repeating: unset, count: recording.count)
      var forward = backward
      return counted(
        try emitOffline(
          recording, name: name, parameters: parameters, frame: frame, declination: declination,
          backward: &backward, forward: &forward, checkStorage: {}, body: body), inputs: inputs)
    case .temporaryFiles:
      do {
        let recording = try TemporaryOfflineRecording(
          hasMagnetometer: usesMagnetometer, blockByteCount: blockByteCount)
        let inputs = try gatherOfflineInputs(from: stream, usesMagnetometer: usesMagnetometer) {
          recording.append(
            timestamp: $0.timestamp, gyroscope: $0.gyroscope, accelerometer: $0.accelerometer,
            magnetometer: $0.magnetometer, accelerometerAge: $0.accelerometerAge,
            magnetometerAge: $0.magnetometerAge)
        }
        let backward = try TemporaryRecordFile<SinglePrecisionQuaternion>(
          prefix: "opencoremotion-offline-backward", blockByteCount: blockByteCount)
        let forward = try TemporaryRecordFile<SinglePrecisionQuaternion>(
          prefix: "opencoremotion-offline-forward", blockByteCount: blockByteCount)
        // References to the same files: the stores are classes, and `checkStorage` reads them.
        var backwardStore = backward
        var forwardStore = forward
        return counted(
          try emitOffline(
            recording, name: name, parameters: parameters, frame: frame,
            declination: declination, backward: &backwardStore, forward: &forwardStore,
            checkStorage: {
              if let failure = recording.failure ?? backward.failure ?? forward.failure {
                throw failure
              }
            }, body: body), inputs: inputs)
      } catch let failure as TemporaryRecordFileError {
        throw Failure(description: "\(name): offline replay: \(failure)")
      }
    }
  }

  /// `summary` with the samples gathered (`inputs`) and those that gave no update (refused by
  /// the recording, or by the frame as not finite) counted.
  private static func counted(_ summary: Summary, inputs: Int) -> Summary {
    var summary = summary
    summary.fusionInputCount = inputs
    summary.refusedSampleCount = Swift.max(0, inputs - summary.deviceMotionCount)
    return summary
  }

  /// One gyroscope sample with the latest accelerometer and magnetometer readings and their
  /// ages (s before `timestamp`; 0 when they came with it).
  private struct OfflineInput {
    var timestamp: Double
    var gyroscope: SIMD3<Double>
    var accelerometer: SIMD3<Double>
    var magnetometer: SIMD3<Double>?
    var accelerometerAge: Double
    var magnetometerAge: Double
  }

  /// Reads `stream` to its end and passes one synchronised input per gyroscope sample to
  /// `append` (time, raw rate, the latest specific force and, when used, the latest magnetic
  /// field, with their ages for sensors on their own clocks), which refuses a time that does not
  /// move forward or a reading beyond single precision's range (left out of the output, and
  /// counted by the caller). Returns the number of inputs passed.
  private static func gatherOfflineInputs(
    from stream: some SampleStream, usesMagnetometer: Bool,
    append: (OfflineInput) -> Bool
  ) throws -> Int {
    var stream = stream
    var inputs = 0
    var latestAccelerometer: (value: SIMD3<Double>, timestamp: Double)?
    var latestMagnetometer: (value: SIMD3<Double>, timestamp: Double)?
    do {
      while let sample = try stream.next() {
        if let a = sample.accelerometer, a.isFinite { latestAccelerometer = (a, sample.timestamp) }
        if let m = sample.magnetometer, m.isFinite { latestMagnetometer = (m, sample.timestamp) }
        guard let g = sample.gyroscope, let a = latestAccelerometer else { continue }
        if usesMagnetometer && latestMagnetometer == nil { continue }
        let m = usesMagnetometer ? latestMagnetometer : nil
        inputs += 1
        _ = append(
          OfflineInput(
            timestamp: sample.timestamp, gyroscope: g, accelerometer: a.value,
            magnetometer: m?.value, accelerometerAge: sample.timestamp - a.timestamp,
            magnetometerAge: m.map { sample.timestamp - $0.timestamp } ?? 0))
      }
    } catch {
      throw Failure(description: "\(stream.descriptor.name): \(error)")
    }
    return inputs
  }

  /// Estimates the attitudes of `recording` with `parameters` into `forward` (with `backward` as
  /// the backward pass's store), then passes one update per sample to `body`. `checkStorage`
  /// throws when the stores lost data; it is called before the first update and after the last.
  private static func emitOffline<Store: OfflineAttitudeStore>(
    _ recording: some OfflineAttitudeInputs, name: String,
    parameters: AttitudeEstimator.Parameters, frame: CMAttitudeReferenceFrame,
    declination: Double?, backward: inout Store, forward: inout Store,
    checkStorage: () throws -> Void, body: (CMDeviceMotion) throws -> Void
  ) throws -> Summary {
    let count = recording.count
    guard count >= 2 else {
      throw Failure(
        description: "\(name) has too few samples with both accelerometer and gyroscope")
    }
    let samplePeriod =
      (recording.timestamp(at: count - 1) - recording.timestamp(at: 0)) / Double(count - 1)

    // The bias is the one a forward pass over everything converged to: the best constant
    // estimate the whole recording gives.
    let gyroscopeBias = OfflineAttitudeEstimator.estimate(
      recording, samplePeriod: samplePeriod, parameters: parameters, backward: &backward,
      result: &forward)
    try checkStorage()

    let usesMagnetometer = recording.hasMagnetometer
    let aligner = ReferenceFrameAligner(frame: frame, declination: declination ?? 0)
    var summary = Summary()
    let ages = recording.hasSensorAges
    var accelerometerClock = AttitudeEstimator.State.SensorClock()
    for i in 0..<count {
      let attitude = forward[i].doublePrecision.normalized
      let timestamp = recording.timestamp(at: i)
      let gyroscope = recording.gyroscope(at: i)
      // The specific force in the axes of the instant the attitude describes, as the real-time
      // estimate gives it (see `DeviceMotionEstimate.accelerometer`), by the estimator's own lag:
      // an accelerometer on its own clock by its age and its own interval.
      let interval = i > 0 ? timestamp - recording.timestamp(at: i - 1) : samplePeriod
      let accelerometerTimestamp = ages ? timestamp - recording.accelerometerAge(at: i) : nil
      accelerometerClock.observe(accelerometerTimestamp, limit: parameters.reinitializationGap)
      let lag = AttitudeEstimator.sampleLag(
        at: timestamp, sampleTimestamp: accelerometerTimestamp, interval: interval,
        clock: accelerometerClock, parameters: parameters)
      let rotation = AttitudeEstimator.sampleToOutputRotation(
        rate: gyroscope - gyroscopeBias, sampleLag: lag,
        gyroscopeDelay: parameters.gyroscopeDelay(over: interval))
      let estimate = DeviceMotionPipeline.Estimate(
        timestamp: timestamp, earthFromSensor6D: attitude,
        earthFromSensor9D: attitude, hasMagneticHeading: usesMagnetometer,
        gyroscope: gyroscope, gyroscopeBias: gyroscopeBias,
        accelerometer: AttitudeEstimator.turned(recording.accelerometer(at: i), by: rotation),
        calibratedMagneticField: nil,
        magneticCalibrationAccuracy: .uncalibrated, needsCalibrationMotion: false)
      guard aligner.accepts(estimate), let motion = aligner.deviceMotion(from: estimate) else {
        continue
      }
      try body(motion)
      summary.deviceMotionCount += 1
    }
    try checkStorage()
    return summary
  }
}
