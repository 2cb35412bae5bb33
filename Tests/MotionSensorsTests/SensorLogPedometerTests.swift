// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import MotionSensors

/// Apple's own pedometer totals in SensorLog logs.
final class SensorLogPedometerTests: XCTestCase {
  private let header =
    "loggingTime(txt),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),"
    + "accelerometerAccelerationY(G),accelerometerAccelerationZ(G),pedometerStartDate(txt),"
    + "pedometerNumberofSteps(N),pedometerDistance(m),pedometerFloorAscended(N),"
    + "pedometerFloorDescended(N),pedometerEndDate(txt)\n"

  private func row(_ time: Double, _ pedometer: String) -> String {
    "2026-11-29T10:00:00.000+01:00,\(time),0,0,-1,2026-11-29T10:00:00.000+01:00,\(pedometer),x\n"
  }

  func testTheLastRowWithACountGivesTheTotals() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(
      header + row(100.00, ",,,") + row(100.01, "3,2.1,0,0") + row(100.02, "7,5.25,1,0")
        // Not counts: a repeat with no values yet, "null", negative, fractional, absurd. Each
        // is passed over; the last plausible row stands.
        + row(100.03, ",,,") + row(100.04, "null,null,null,null") + row(100.05, "-1,3,0,0")
        + row(100.06, "7.5,3,0,0") + row(100.07, "1e300,3,0,0"),
      to: "log.csv")
    XCTAssertEqual(
      try SensorLogPedometer.totals(in: url),
      SensorLogPedometer.Totals(steps: 7, distance: 5.25, floorsAscended: 1, floorsDescended: 0))

    // A distance or floor cell that is not a number leaves that value out, not the count.
    let partial = try folder.write(
      header + row(100.00, "12,inf,-2,"), to: "partial.csv")
    XCTAssertEqual(
      try SensorLogPedometer.totals(in: partial),
      SensorLogPedometer.Totals(steps: 12, distance: nil, floorsAscended: nil, floorsDescended: nil)
    )
  }

  func testSemicolonsWithDecimalCommasAreRead() throws {
    let folder = try RecordingFixtureFolder()
    let text = (header + row(100.0, "42,31.5,2,1"))
      .replacingOccurrences(of: ",", with: ";")
      .replacingOccurrences(of: "31.5", with: "31,5")
      .replacingOccurrences(of: "100.0", with: "100,0")
    let url = try folder.write(text, to: "semicolons.csv")
    XCTAssertEqual(try SensorLogPedometer.totals(in: url)?.distance, 31.5)
    XCTAssertEqual(try SensorLogPedometer.totals(in: url)?.steps, 42)
  }

  func testLogsWithoutThePedometerAndOtherFormatsHaveNone() throws {
    let folder = try RecordingFixtureFolder()
    let noPedometer = try folder.write(
      "loggingTime(txt),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),"
        + "accelerometerAccelerationY(G),accelerometerAccelerationZ(G)\n"
        + "2026-11-29T10:00:00.000+01:00,100,0,0,-1\n", to: "raw.csv")
    XCTAssertNil(try SensorLogPedometer.totals(in: noPedometer))
    let switchedOff = try folder.write(header + row(100, ",,,"), to: "off.csv")
    XCTAssertNil(try SensorLogPedometer.totals(in: switchedOff))
    let shared = try folder.write("t,ax,ay,az\n0,0,0,9.8\n", to: "shared.csv")
    XCTAssertNil(try SensorLogPedometer.totals(in: shared))
    XCTAssertThrowsError(
      try SensorLogPedometer.totals(in: folder.url.appendingPathComponent("none.csv")))
  }
}
