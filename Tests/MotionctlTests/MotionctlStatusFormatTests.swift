// SPDX-License-Identifier: Apache-2.0

import XCTest

@testable import motionctl

/// `motionctl status` writes the rates the daemon reports with `StatusCommand.format`. The daemon
/// is another process whose source may be any recording, so every `Double` must come out as text,
/// never as a trap, and a rate must read the same however close to whole it is.
final class MotionctlStatusFormatTests: XCTestCase {
  func testWholeRatesHaveNoDecimals() {
    XCTAssertEqual(StatusCommand.format(50), "50")
    XCTAssertEqual(StatusCommand.format(0), "0")
    XCTAssertEqual(StatusCommand.format(-0.0), "0")
    XCTAssertEqual(StatusCommand.format(-3), "-3")
    XCTAssertEqual(StatusCommand.format(999_999_999_999_999), "999999999999999")
  }

  func testOtherRatesHaveTwoDecimals() {
    XCTAssertEqual(StatusCommand.format(12.5), "12.50")
    XCTAssertEqual(StatusCommand.format(0.1), "0.10")
    XCTAssertEqual(StatusCommand.format(-2.5), "-2.50")
    XCTAssertEqual(StatusCommand.format(1234.5678), "1234.57")
    XCTAssertEqual(StatusCommand.format(29.994), "29.99")
  }

  /// A rate that rounds to a whole number at two decimals reads as that number: before, 29.999 Hz
  /// was "30.00" where 30 Hz was "30", and a tiny negative rate was "-0.00".
  func testRatesThatRoundToAWholeNumberHaveNoDecimals() {
    XCTAssertEqual(StatusCommand.format(29.999), "30")
    XCTAssertEqual(StatusCommand.format(0.004), "0")
    XCTAssertEqual(StatusCommand.format(-0.004), "0")
    XCTAssertEqual(StatusCommand.format(-1.999), "-2")
    XCTAssertEqual(StatusCommand.format(.leastNonzeroMagnitude), "0")
    XCTAssertEqual(StatusCommand.format(-.leastNonzeroMagnitude), "0")
  }

  /// Values that are not finite, or too large for `Int` or for two decimals to mean anything, are
  /// written as Swift writes them.
  func testHostileValuesAreWrittenAsTheyAre() {
    XCTAssertEqual(StatusCommand.format(.nan), "nan")
    XCTAssertEqual(StatusCommand.format(-.nan), "-nan")
    XCTAssertEqual(StatusCommand.format(.signalingNaN), "snan")
    XCTAssertEqual(StatusCommand.format(.infinity), "inf")
    XCTAssertEqual(StatusCommand.format(-.infinity), "-inf")
    XCTAssertEqual(StatusCommand.format(1e15), "1000000000000000.0")
    XCTAssertEqual(StatusCommand.format(-1e15), "-1000000000000000.0")
    XCTAssertEqual(StatusCommand.format(1e19), "1e+19")
    XCTAssertEqual(StatusCommand.format(.greatestFiniteMagnitude), "1.7976931348623157e+308")
    XCTAssertEqual(StatusCommand.format(-.greatestFiniteMagnitude), "-1.7976931348623157e+308")
  }
}
