// SPDX-License-Identifier: Apache-2.0

extension OrientationClassifier: MotionEventDetector {
  /// Classifies `input.gravity` (or, without it, the raw acceleration) and returns the change it
  /// committed, if any.
  public mutating func update(_ input: MotionInput) -> OrientationChange? {
    let previous = orientation
    let current = update(gravity: input.gravity ?? input.acceleration, timestamp: input.timestamp)
    guard current != previous else { return nil }
    return OrientationChange(timestamp: input.timestamp, previous: previous, orientation: current)
  }
}
