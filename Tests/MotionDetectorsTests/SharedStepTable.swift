// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors

/// Feeds a shared recording laid out as `t, ax, ay, az[, gx, gy, gz, …]` to `detector`, row by
/// row as a live stream would, the gyroscope too when the row has one and `gyroscope` is true.
/// `accelerationScale` turns the file's accelerations into g (only |a| matters, so the sign
/// convention does not: 1 for MotionSense's g, 1 / 9.806 65 for the steps layout's m/s²).
/// `onStep` gets each step the detector returns, with the time of the row that returned it.
/// Rows that are not numbers (the header) are skipped.
func feedSharedTable(
  _ url: URL, accelerationScale: Double, gyroscope: Bool = true, to detector: inout StepDetector,
  onStep: (_ rowTime: Double, _ step: Double) -> Void
) throws {
  let text = try String(contentsOf: url, encoding: .utf8)
  for line in text.split(separator: "\n") {
    let values = line.split(separator: ",").prefix(7).compactMap { Double($0) }
    guard values.count >= 4 else { continue }
    if gyroscope, values.count == 7 {
      detector.process(time: values[0], rotationRate: SIMD3(values[4], values[5], values[6]))
    }
    let acceleration = SIMD3(values[1], values[2], values[3]) * accelerationScale
    if let step = detector.process(time: values[0], acceleration: acceleration) {
      onStep(values[0], step)
    }
  }
}
