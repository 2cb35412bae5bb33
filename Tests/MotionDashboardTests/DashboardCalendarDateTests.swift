// SPDX-License-Identifier: Apache-2.0

import XCTest

@testable import MotionDashboard

/// The check of `/api/history/day`'s `date` before anything reads it.
final class DashboardCalendarDateTests: XCTestCase {
  func testRealDatesPass() {
    for text in [
      "2026-11-23", "2024-02-29", "2000-02-29", "0001-01-01", "9999-12-31", "2026-03-29",
    ] {
      XCTAssertEqual(DashboardCalendarDate.validated(text[...]), text)
    }
  }

  func testImpossibleOrMalformedDatesAreRefused() {
    let refused = [
      "", "2026-11-2", "2026-11-233", "2026-11-23 ", " 2026-11-23", "2026/11/23", "2026-1-123",
      "1900-02-29", "2026-02-29", "2100-02-29", "2026-04-31", "2026-06-31", "2026-09-31",
      "2026-11-31", "2026-13-01", "2026-00-01", "2026-01-00", "2026-01-32", "0000-01-01",
      "２026-11-23", "2026-11-2３", "-026-11-23", "+026-11-23", "2026-11-+3", "2026_11_23",
      "2026-11-23\u{0}", "1e10-11-23", String(repeating: "2026-11-23", count: 1000),
    ]
    for text in refused {
      XCTAssertNil(DashboardCalendarDate.validated(text[...]), text)
    }
  }

  func testMonthLengths() {
    XCTAssertEqual(
      (1...12).map { DashboardCalendarDate.daysIn(month: $0, year: 2026) },
      [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])
    XCTAssertEqual(DashboardCalendarDate.daysIn(month: 2, year: 2000), 29)
    XCTAssertEqual(DashboardCalendarDate.daysIn(month: 2, year: 1900), 28)
    XCTAssertEqual(DashboardCalendarDate.daysIn(month: 2, year: 2028), 29)
  }
}
