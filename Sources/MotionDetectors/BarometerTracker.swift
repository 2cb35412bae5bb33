// SPDX-License-Identifier: Apache-2.0

/// Relative altitude and walked floors from one barometer: ``RelativeAltitudeFilter`` and
/// ``FloorCounter`` fed together, with the readings neither may use counted.
///
/// This is what `CMAltimeter` and `CMPedometer` run in process, what `motiond` runs for its
/// history, what the dashboard shows and what `motionctl altitude` prints, so that each reports
/// the same altitude and floors from the same readings. Floors count only around the steps told
/// through ``noteStep(time:)`` (the pedometer's counted steps, with their own times: those the
/// riding gate gives back late still count for the floors walked when they happened).
public struct BarometerTracker: Sendable {
  /// What one accepted reading gives.
  public struct Reading: Sendable, Equatable {
    /// Height since the first reading, m (standard atmosphere, lightly smoothed).
    public var altitude: Double
    /// The smoothed pressure that ``altitude`` is the height of, kPa.
    public var pressure: Double
    /// Floors counted by this reading, `nil` when none. Their ``FloorCounter/Change/time`` is
    /// when they were walked: earlier than this reading when late steps showed a change to be
    /// walked after it settled.
    public var floors: FloorCounter.Change?
  }

  private var altitudeFilter = RelativeAltitudeFilter()
  private var floorCounter = FloorCounter()
  /// Readings refused as physically impossible (outside 1–200 kPa, or not finite), or at a time
  /// that is not finite.
  public private(set) var refusedReadings = 0

  public init() {}

  /// The latest relative altitude, m since the first reading.
  public var relativeAltitude: Double { altitudeFilter.relativeAltitude }
  /// Floors walked up so far.
  public var floorsAscended: Int { floorCounter.floorsAscended }
  /// Floors walked down so far.
  public var floorsDescended: Int { floorCounter.floorsDescended }

  /// Feeds one reading (time in s, pressure in kPa). Readings outside
  /// ``BarometricAltitude/plausiblePressureRange`` (1–200 kPa; NaN and infinities too), or at a
  /// time that is not finite, return `nil`, are counted in ``refusedReadings`` and leave the
  /// altitude and floor state as they were.
  public mutating func process(time: Double, pressure: Double) -> Reading? {
    guard BarometricAltitude.isPlausible(pressure: pressure),
      let altitude = altitudeFilter.process(time: time, pressure: pressure)
    else {
      refusedReadings &+= 1
      return nil
    }
    let floors = floorCounter.process(time: time, pressure: pressure)
    return Reading(
      altitude: altitude, pressure: altitudeFilter.smoothedPressure ?? pressure, floors: floors)
  }

  /// Tells the floor counter that a step happened at `time` s (floors count only while walking).
  public mutating func noteStep(time: Double) {
    floorCounter.noteStep(time: time)
  }
}
