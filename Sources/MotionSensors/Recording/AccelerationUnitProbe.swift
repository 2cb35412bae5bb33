// SPDX-License-Identifier: Apache-2.0

/// Tells an accelerometer column in g from one in m/s² by its readings, for files that do not say
/// which (a plain `t,ax,ay,az` table, a Sensor Logger export without its platform).
///
/// The median |a| of the first readings decides: about 1 is g, about 9.8 is m/s². Nothing at rest
/// or walking on the Earth's surface has a median |a| of 4 g, nor of 4 m/s², so the line between
/// them is safe. Readings of (almost) zero are left out: some loggers write zero rows before the
/// sensor's first reading, and they would pull the median of an m/s² file under the line.
package enum AccelerationUnitProbe {
  /// How many readings decide.
  package static let sampleCount = 500
  /// Below this |a| (in either unit) a reading is taken for a placeholder, not a measurement: a
  /// phone in free fall is the only real case, and not for long.
  package static let nearZeroMagnitude = 0.05
  /// The median |a| under which the readings are g.
  package static let gramsLine = 4.0

  /// Whether a reading of this magnitude counts in the decision.
  package static func isMeasurement(_ magnitude: Double) -> Bool {
    magnitude > nearZeroMagnitude
  }

  /// Whether readings of these magnitudes are in g; `nil` when none is a measurement.
  package static func isInG(magnitudes: [Double]) -> Bool? {
    let measured = magnitudes.filter(isMeasurement).sorted()
    guard !measured.isEmpty else { return nil }
    return measured[measured.count / 2] < gramsLine
  }

  /// Reads up to ``sampleCount`` accelerometer readings of `stream` (at most 20 times as many
  /// samples, so a file of placeholders is not read to its end) and tells whether they are in g.
  static func isInG(reading stream: inout some SampleStream) throws -> Bool? {
    var magnitudes: [Double] = []
    var measured = 0
    var read = 0
    while read < 20 * sampleCount, measured < sampleCount, let sample = try stream.next() {
      read += 1
      guard let a = sample.accelerometer else { continue }
      let magnitude = (a * a).sum().squareRoot()
      if isMeasurement(magnitude) {
        magnitudes.append(magnitude)
        measured += 1
      }
    }
    return isInG(magnitudes: magnitudes)
  }
}
