// SPDX-License-Identifier: Apache-2.0

import XCTest

@testable import LinuxIIO

final class IIOScanFormatTests: XCTestCase {
  func testParsesKernelSpellings() throws {
    let mpu = try XCTUnwrap(IIOScanType(parsing: "be:s16/16>>0\n"))
    XCTAssertEqual(mpu.endianness, .big)
    XCTAssertTrue(mpu.isSigned)
    XCTAssertEqual([mpu.realBits, mpu.storageBits, mpu.repeatCount, mpu.shift], [16, 16, 1, 0])

    let hid = try XCTUnwrap(IIOScanType(parsing: "le:s16/32>>0"))
    XCTAssertEqual([hid.realBits, hid.storageBits, hid.byteCount], [16, 32, 4])

    let shifted = try XCTUnwrap(IIOScanType(parsing: "le:s12/16>>4"))
    XCTAssertEqual([shifted.realBits, shifted.storageBits, shifted.shift], [12, 16, 4])

    let repeated = try XCTUnwrap(IIOScanType(parsing: "le:u16/16X4>>0"))
    XCTAssertEqual(repeated.repeatCount, 4)
    XCTAssertEqual(repeated.byteCount, 8)
    XCTAssertFalse(repeated.isSigned)

    // The ABI document's examples omit ">>shift".
    let noShift = try XCTUnwrap(IIOScanType(parsing: "be:u16/16"))
    XCTAssertEqual(noShift.shift, 0)
    XCTAssertEqual(IIOScanType(parsing: "le:s48/64>>2")?.realBits, 48)

    XCTAssertEqual(repeated.description, "le:u16/16X4>>0")
    XCTAssertEqual(mpu.description, "be:s16/16>>0")
  }

  func testRejectsMalformedFormats() {
    for text in [
      "", "xe:s16/16>>0", "le:f16/16>>0", "le:s16/12>>0", "le:s16/24>>0", "le:s0/16>>0",
      "le:s12/16>>5", "le:s16/16>>", "le:s16/16>>0 extra", "le:s16/16X>>0", "le:s16/16X0>>0",
      "le:s16", "le:s16/", "s16/16>>0",
    ] {
      XCTAssertNil(IIOScanType(parsing: text), "accepted \"\(text)\"")
    }
  }

  func testDecodesByteOrderSignShiftAndMask() throws {
    let be = try XCTUnwrap(IIOScanType(parsing: "be:s16/16>>0"))
    let le = try XCTUnwrap(IIOScanType(parsing: "le:s16/16>>0"))
    let bytes: [UInt8] = [0xFF, 0xFE, 0x40, 0x00]
    bytes.withUnsafeBytes { raw in
      XCTAssertEqual(be.decode(raw, at: 0), -2)  // 0xFFFE
      XCTAssertEqual(le.decode(raw, at: 0), -257)  // 0xFEFF
      XCTAssertEqual(be.decode(raw, at: 2), 16384)  // 0x4000
    }
    // le:s12/16>>4: 0x8010 >> 4 = 0x801, 12-bit signed = −2047.
    let s12 = try XCTUnwrap(IIOScanType(parsing: "le:s12/16>>4"))
    [UInt8(0x10), 0x80].withUnsafeBytes { XCTAssertEqual(s12.decode($0, at: 0), -2047) }
    // Unsigned values stay positive.
    let u16 = try XCTUnwrap(IIOScanType(parsing: "be:u16/16>>0"))
    [UInt8(0xFF), 0xFE].withUnsafeBytes { XCTAssertEqual(u16.decode($0, at: 0), 65534) }
    // The timestamp channel: full 64 bits.
    let ts = try XCTUnwrap(IIOScanType(parsing: "le:s64/64>>0"))
    let value: Int64 = 1_611_158_408_465_252_814
    withUnsafeBytes(of: value.littleEndian) { XCTAssertEqual(ts.decode($0, at: 0), value) }
  }

  /// iio-sensor-proxy's `orientation-normal.bin`: a HID-style record whose 32-bit slots carry
  /// garbage in their upper halves, which decoding must mask away.
  func testDecodesIioSensorProxyGoldenRecord() throws {
    let hex = "6700 69fc 69fc 7ffe 7ffe 0000 0000 0000 ce81 7445 09fc 5b16"
    let bytes = hex.split(separator: " ").flatMap { word -> [UInt8] in
      [UInt8(word.prefix(2), radix: 16)!, UInt8(word.suffix(2), radix: 16)!]
    }
    XCTAssertEqual(bytes.count, 24)
    let layout = Fixtures.hidLayout("accel")
    XCTAssertEqual(layout.recordSize, 24)
    let decoded = bytes.withUnsafeBytes { raw in
      layout.elements.map { $0.type.decode(raw, at: $0.offset) }
    }
    XCTAssertEqual(Array(decoded.prefix(3)), [103, -919, -385])
    XCTAssertEqual(decoded[3], 1_611_158_408_465_252_814)
  }

  func testEncodeRoundTripsWithGarbageBits() throws {
    let seed = testSeedValue()
    var rng = SimpleRNG(seed: seed)
    for text in ["be:s16/16>>0", "le:s16/32>>0", "le:s12/16>>4", "be:u10/16>>2", "le:s24/32>>0"] {
      let type = try XCTUnwrap(IIOScanType(parsing: text))
      for _ in 0..<200 {
        let span = Int64(1) << Int64(type.realBits - 1)
        let value =
          type.isSigned
          ? Int64(rng.next() % UInt64(2 * span)) - span : Int64(rng.next() % UInt64(2 * span))
        var bytes = [UInt8](repeating: 0, count: type.byteCount)
        type.encode(value, into: &bytes, at: 0, garbage: rng.next())
        bytes.withUnsafeBytes {
          XCTAssertEqual(type.decode($0, at: 0), value, "\(text), seed \(seed)")
        }
      }
    }
  }

  private func testSeedValue() -> UInt64 {
    ProcessInfo.processInfo.environment["MOTION_TEST_SEED"].flatMap(UInt64.init) ?? 0x1105
  }
}

/// A tiny xorshift generator for the round-trip test (seed printed on failure).
struct SimpleRNG {
  var state: UInt64
  init(seed: UInt64) { state = seed | 1 }
  mutating func next() -> UInt64 {
    state ^= state << 13
    state ^= state >> 7
    state ^= state << 17
    return state
  }
}

final class IIOScanLayoutTests: XCTestCase {
  private func element(_ name: String, _ index: Int, _ type: String) -> IIOScanLayout.Element {
    IIOScanLayout.Element(name: name, index: index, type: IIOScanType(parsing: type)!)
  }

  /// The kernel documentation's example (iio_devbuf.rst).
  func testKernelDocumentationExample() {
    let all = IIOScanLayout([
      element("ch3", 3, "be:u64/64"), element("ch0", 0, "be:u16/16"),
      element("ch1", 1, "be:u32/32"), element("ch2", 2, "be:u32/32"),
    ])
    XCTAssertEqual(all.elements.map(\.name), ["ch0", "ch1", "ch2", "ch3"])
    XCTAssertEqual(all.elements.map(\.offset), [0, 4, 8, 16])
    XCTAssertEqual(all.recordSize, 24)

    let sparse = IIOScanLayout([element("ch0", 0, "be:u16/16"), element("ch3", 3, "be:u64/64")])
    XCTAssertEqual(sparse.elements.map(\.offset), [0, 8])
    XCTAssertEqual(sparse.recordSize, 16)
  }

  func testTypicalImuRecords() {
    // Three 16-bit axes and a timestamp: 6 data bytes, 2 pad, timestamp at 8.
    let accel = IIOScanLayout(
      ["x", "y", "z"].enumerated().map { element("in_accel_\($1)", $0, "le:s16/16>>0") }
        + [element("in_timestamp", 3, "le:s64/64>>0")])
    XCTAssertEqual(accel.elements.map(\.offset), [0, 2, 4, 8])
    XCTAssertEqual(accel.recordSize, 16)

    // mpu6050: accel, temp, gyro (7 × 2 bytes), timestamp aligned to 16.
    let mpu = Fixtures.mpuLayout()
    XCTAssertEqual(mpu.elements.map(\.offset), [0, 2, 4, 6, 8, 10, 12, 16])
    XCTAssertEqual(mpu.recordSize, 24)

    // bmi160: gyro precedes accel because of its lower scan indexes.
    let bmi = Fixtures.bmiLayout()
    XCTAssertEqual(
      bmi.elements.prefix(3).map(\.name), ["in_anglvel_x", "in_anglvel_y", "in_anglvel_z"])
    XCTAssertEqual(bmi.element(named: "in_accel_x")?.offset, 6)
    XCTAssertEqual(bmi.element(named: "in_timestamp")?.offset, 16)
    XCTAssertEqual(bmi.recordSize, 24)

    // HID: 32-bit slots.
    let hid = Fixtures.hidLayout("accel")
    XCTAssertEqual(hid.elements.map(\.offset), [0, 4, 8, 16])
  }

  func testRecordPaddedToLargestElementWithoutTimestamp() {
    // A 16-bit channel after a 32-bit one: 6 bytes, padded to a multiple of 4.
    let layout = IIOScanLayout([element("a", 0, "le:s32/32"), element("b", 1, "le:s16/16")])
    XCTAssertEqual(layout.elements.map(\.offset), [0, 4])
    XCTAssertEqual(layout.recordSize, 8)
    // Repeats count as one element of their total size for alignment.
    let repeated = IIOScanLayout([element("a", 0, "le:s16/16"), element("q", 1, "le:s16/16X4")])
    XCTAssertEqual(repeated.elements.map(\.offset), [0, 8])
    XCTAssertEqual(repeated.recordSize, 16)
  }
}
