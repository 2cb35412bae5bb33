// SPDX-License-Identifier: Apache-2.0

import MotionSensors

/// The acceleration of a plain `t,ax,ay,az` table, whose units (g with Apple's sign, or specific
/// force in m/s²) its first `AccelerationUnitProbe.sampleCount` measurements decide
/// (``ActivityRecording/Units/detected(fromFirst:)``). It holds those samples until then and hands
/// every sample over with the units it is in, so a reader keeps no more of the file than that.
/// Shared by ``ActivityRecording`` and ``StepRecording``, which convert to their own conventions.
struct PlainTableUnitDetector {
  typealias Units = ActivityRecording.Units

  /// The units, once decided (from the start when the reader's format already converts).
  private(set) var units: Units?
  private var head: [(time: Double, value: SIMD3<Double>)] = []
  /// How many held samples are measurements (not near-zero placeholders, which the decision
  /// leaves out): the decision waits for enough of them, holding at most
  /// ``maximumHeldSamples`` in all.
  private var measuredCount = 0
  /// A file of placeholders only is decided on what it has by then, so memory stays bounded.
  static let maximumHeldSamples = 20 * AccelerationUnitProbe.sampleCount

  /// - Parameter units: the units when they are known already, `nil` to decide from the samples.
  init(units: Units?) {
    self.units = units
  }

  /// Takes one sample (time s, acceleration as read) and hands over, through `deliver`, what can
  /// be handed over now: this sample, or every held one when this sample completes the head.
  mutating func add(
    time: Double, value: SIMD3<Double>, deliver: (Double, SIMD3<Double>, Units) throws -> Void
  ) rethrows {
    if let units {
      try deliver(time, value, units)
      return
    }
    head.append((time, value))
    if AccelerationUnitProbe.isMeasurement((value * value).sum().squareRoot()) {
      measuredCount += 1
    }
    if measuredCount == AccelerationUnitProbe.sampleCount
      || head.count >= Self.maximumHeldSamples
    {
      try decide(deliver)
    }
  }

  /// At the end of the file: decides from what is held, if it has not yet, hands it over, and
  /// returns the units.
  @discardableResult
  mutating func finish(deliver: (Double, SIMD3<Double>, Units) throws -> Void) rethrows -> Units {
    if let units { return units }
    return try decide(deliver)
  }

  @discardableResult
  private mutating func decide(
    _ deliver: (Double, SIMD3<Double>, Units) throws -> Void
  ) rethrows
    -> Units
  {
    let decided = Units.detected(fromFirst: head.map(\.value))
    units = decided
    let held = head
    head = []
    for (time, value) in held { try deliver(time, value, decided) }
    return decided
  }
}
