// SPDX-License-Identifier: Apache-2.0

import MotionMath

extension EvaluationTrial {
  /// The trial at `1/factor` of its rate, as a slower sensor would deliver it: gyroscope,
  /// accelerometer and magnetometer averaged over each window of `factor` consecutive samples
  /// (what a sensor's own decimation filter does), the window's time, reference attitude and
  /// movement flag taken from its last sample. Windows start at the first sample; an incomplete
  /// window at the end is dropped. Magnetometer samples that are missing (zero) are left out of
  /// the average; a window without any stays zero (missing). `factor` ≤ 1 returns the trial as
  /// it is.
  ///
  /// The same decimation is done by `Benchmarks/fusion-comparison/compare.py --rates`, so both
  /// filters see identical data.
  public func decimated(by factor: Int) -> EvaluationTrial {
    guard factor > 1 else { return self }
    let windows = count / factor
    var t: [Double] = [], g: [SIMD3<Double>] = [], a: [SIMD3<Double>] = []
    var m: [SIMD3<Double>] = [], r: [Quaternion?] = [], mv: [Bool] = []
    t.reserveCapacity(windows); g.reserveCapacity(windows); a.reserveCapacity(windows)
    m.reserveCapacity(windows); r.reserveCapacity(windows); mv.reserveCapacity(windows)
    let scale = 1 / Double(factor)
    for window in 0..<windows {
      let start = window * factor
      let last = start + factor - 1
      var gyroscopeSum = SIMD3<Double>.zero, accelerometerSum = SIMD3<Double>.zero
      var fieldSum = SIMD3<Double>.zero
      var fieldCount = 0
      for i in start...last {
        gyroscopeSum += gyroscope[i]
        accelerometerSum += accelerometer[i]
        if magnetometer[i] != .zero {
          fieldSum += magnetometer[i]
          fieldCount += 1
        }
      }
      t.append(timestamps[last])
      g.append(gyroscopeSum * scale)
      a.append(accelerometerSum * scale)
      m.append(fieldCount > 0 ? fieldSum / Double(fieldCount) : .zero)
      r.append(reference[last])
      mv.append(isMovementPhase[last])
    }
    return EvaluationTrial(
      name: name, timestamps: t, gyroscope: g, accelerometer: a, magnetometer: m, reference: r,
      isMovementPhase: mv)
  }
}
