// SPDX-License-Identifier: Apache-2.0

import MotionSensors
import XCTest

@testable import PhoneStreamDecoding

/// Text from the network in messages, and how often a malformed push is reported.
final class NetworkTextHardeningTests: XCTestCase {
  /// Escape sequences, line breaks and bidirectional overrides are written out, not passed to
  /// the terminal; the length is bounded.
  func testPrintableExcerptEscapesControlsAndBoundsTheLength() {
    let hostile = "ok\u{1B}]0;pwned\u{07}\r\nwarning: forged\u{202E}txt\u{85}"
    let excerpt = printableExcerpt(hostile, maximumCharacters: 100)
    XCTAssertEqual(
      excerpt, "ok\\u{1B}]0;pwned\\u{7}\\u{D}\\u{A}warning: forged\\u{202E}txt\\u{85}")
    XCTAssertFalse(excerpt.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
    XCTAssertEqual(printableExcerpt("abcdef", maximumCharacters: 3), "abc…")
    XCTAssertEqual(printableExcerpt("héllo ✓", maximumCharacters: 10), "héllo ✓")
  }

  /// A body that is not JSON is quoted through the excerpt in its failure.
  func testAMalformedBodysPreviewIsEscaped() {
    guard case .failure(let failure) = SensorLoggerStream.decode(Array("\u{1B}[2J\n{".utf8)) else {
      return XCTFail("a body that is not JSON decoded")
    }
    XCTAssertTrue(failure.message.contains("\\u{1B}[2J\\u{A}{"), failure.message)
  }

  /// The first ten malformed bodies are reported, then one at each power of ten, with the count;
  /// every one is still refused (the sender's 400).
  func testMalformedBodiesAreReportedTenThenAtPowersOfTen() {
    var stream = SensorLoggerStream(
      convention: .android, messageReorderWindow: 0, sampleHoldTime: 0, maximumSampleDelay: 0,
      clock: .receiverBoot)
    var reported: [String] = []
    var refused = 0
    for i in 0..<1_000 {
      let outcome = stream.receive(body: Array("not json".utf8), now: Double(i) * 0.001)
      if outcome.rejection != nil { refused += 1 }
      for case .failure(let failure) in outcome.events { reported.append(failure.message) }
    }
    XCTAssertEqual(refused, 1_000)
    XCTAssertEqual(reported.count, 12)
    XCTAssertTrue(reported[10].hasSuffix("(100 malformed bodies so far)"), reported[10])
    XCTAssertTrue(reported[11].hasSuffix("(1000 malformed bodies so far)"), reported[11])
  }
}
