// SPDX-License-Identifier: Apache-2.0

import MotionDetectors
import MotionSensors
import XCTest

final class RelativeAltitudeFilterTests: XCTestCase {
  /// 1 mm: far below a phone barometer's resolution (about 1 Pa, 8 cm), so "equal" to the formula.
  let belowBarometerResolution = 1e-3  // m
  /// The first reading is 0 and later ones are the standard-atmosphere height difference: exactly
  /// (to 1 mm, far below a barometer's resolution) when unsmoothed, as iPhones report it.
  func testMatchesTheStandardAtmosphereDifference() {
    var parameters = RelativeAltitudeFilter.Parameters()
    parameters.smoothingTimeConstant = 0
    var filter = RelativeAltitudeFilter(parameters: parameters)
    XCTAssertEqual(filter.process(time: 0, pressure: 97.0), 0)
    for (index, pressure) in [96.9, 97.2, 95.0, 101.0].enumerated() {
      let expected =
        BarometricAltitude.height(atPressure: pressure)
        - BarometricAltitude.height(atPressure: 97.0)
      let altitude = filter.process(time: Double(index + 1), pressure: pressure)
      XCTAssertEqual(altitude ?? .nan, expected, accuracy: belowBarometerResolution)
    }
    // 0.1 kPa near sea level is about 8.3 m (RT/(gp) = 8.32 m/hPa): a rule of thumb, good to the
    // 2 cm its rounding and the change of scale height over 8 m leave.
    let ruleOfThumbTolerance = 0.02  // m
    var check = RelativeAltitudeFilter(parameters: parameters)
    _ = check.process(time: 0, pressure: 101.325)
    XCTAssertEqual(
      check.process(time: 1, pressure: 101.225) ?? .nan, 8.33, accuracy: ruleOfThumbTolerance)
  }

  /// A time constant beyond the documented 0…60 s is 60 s, NaN the default: an infinite one
  /// froze the filter for good (each reading blended by 0, the altitude stuck at 0). Fed 101.325
  /// kPa then 101.2 kPa every second for 10 minutes (ten 60 s time constants), the altitude
  /// reaches the standard-atmosphere difference, ≈ 10.4 m.
  func testAnInfiniteOrNaNTimeConstantDoesNotFreezeTheAltitude() {
    let expected =
      BarometricAltitude.height(atPressure: 101.2)
      - BarometricAltitude.height(atPressure: 101.325)
    XCTAssertEqual(expected, 10.4, accuracy: 0.05)
    for tau in [Double.infinity, 1e300, .nan] {
      var parameters = RelativeAltitudeFilter.Parameters()
      parameters.smoothingTimeConstant = tau
      var filter = RelativeAltitudeFilter(parameters: parameters)
      _ = filter.process(time: 0, pressure: 101.325)
      var altitude = 0.0
      for second in 1...600 {
        altitude = filter.process(time: Double(second), pressure: 101.2) ?? .nan
      }
      XCTAssertEqual(altitude, expected, accuracy: 0.01, "τ = \(tau)")
    }
  }

  /// At 1 Hz (what phones deliver) the light smoothing changes nothing measurable (< 1 mm).
  func testSmoothingIsNegligibleAtPhoneRates() {
    var smoothed = RelativeAltitudeFilter()
    _ = smoothed.process(time: 0, pressure: 100)
    let altitude = smoothed.process(time: 1, pressure: 99.9) ?? .nan
    let exact =
      BarometricAltitude.height(atPressure: 99.9) - BarometricAltitude.height(atPressure: 100)
    XCTAssertEqual(altitude, exact, accuracy: belowBarometerResolution)
  }

  /// The simulated lift ride (9 m up) ends 9 m higher, within the barometer's noise and bias drift
  /// (a few decimetres).
  func testLiftRideOnTheSimulator() throws {
    var stream = SimulatedSensorStream(scenario: try Scenario.named("lift"))
    var filter = RelativeAltitudeFilter()
    var last = 0.0
    while let sample = try stream.next() {
      if let pressure = sample.pressure,
        let altitude = filter.process(time: sample.timestamp, pressure: pressure)
      {
        last = altitude
      }
    }
    // The simulated barometer's noise and bias drift over the ride.
    let barometerNoiseAndDrift = 0.4  // m
    XCTAssertEqual(last, 9, accuracy: barometerNoiseAndDrift)
  }

  func testInvalidReadingsAreSkipped() {
    var filter = RelativeAltitudeFilter()
    XCTAssertNil(filter.process(time: 0, pressure: .nan))
    XCTAssertNil(filter.process(time: 0, pressure: -3))
    XCTAssertEqual(filter.process(time: 0, pressure: 100), 0)
  }

  /// A physically impossible reading (1e306 kPa: 1e308 hPa in a hostile file; 0.5 kPa; 250 kPa)
  /// is refused and leaves the state alone: a normal reading ten minutes later gives the normal
  /// altitude, not +44 km from a smoothed pressure lost to cancellation.
  func testImpossiblePressuresNeverReachTheState() {
    XCTAssertTrue(BarometricAltitude.isPlausible(pressure: 101.325))
    XCTAssertTrue(BarometricAltitude.isPlausible(pressure: 1))
    XCTAssertTrue(BarometricAltitude.isPlausible(pressure: 200))
    var filter = RelativeAltitudeFilter()
    XCTAssertEqual(filter.process(time: 0, pressure: 101.325), 0)
    for (time, pressure) in [(1.0, 0.0), (2, -0.5), (3, 1e306), (4, 0.5), (5, 250), (6, .infinity)]
    {
      XCTAssertNil(filter.process(time: time, pressure: pressure), "\(pressure) kPa")
      XCTAssertEqual(filter.smoothedPressure, 101.325)
    }
    let altitude = filter.process(time: 600, pressure: 101.325)
    XCTAssertEqual(altitude ?? .nan, 0, accuracy: belowBarometerResolution)
    XCTAssertEqual(filter.smoothedPressure ?? .nan, 101.325, accuracy: 1e-9)
  }
}
