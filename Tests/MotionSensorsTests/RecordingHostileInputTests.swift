// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest
import ZIPFoundation

@testable import MotionSensors

/// Hostile recordings: archives crafted to exhaust memory are refused with a ``RecordingError``;
/// rows without values and absurd header rates are skipped or ignored, never ending or trapping.
final class RecordingHostileInputTests: XCTestCase {
  /// 16 MiB of zeros deflates about 1000:1; the member is refused past max(1 MiB, 200 × compressed
  /// size) instead of being inflated whole.
  func testZipBombMemberIsRefused() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "bomb-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("bomb.zip")
    let archive = try Archive(url: url, accessMode: .create)
    try archive.addEntry(
      with: "Accelerometer.csv", type: .file, uncompressedSize: Int64(16 << 20),
      compressionMethod: .deflate
    ) { _, chunk in Data(count: chunk) }
    let container = try RecordingContainer(url)
    XCTAssertThrowsError(try container.bytes("Accelerometer.csv")) { error in
      guard let error = error as? RecordingError else { return XCTFail("\(error)") }
      XCTAssertEqual(error.kind, .unreadable)
      XCTAssertTrue(error.message.contains("zip bomb"), error.message)
    }
    // Reading it as a recording gives the same kind of error, not an allocation of 32 MiB.
    XCTAssertThrowsError(try RecordingReader.open(url)) { error in
      XCTAssertTrue(error is RecordingError, "\(error)")
    }
  }

  /// One instant without a value used to end the summed accelerometer stream: the rest of the
  /// recording vanished. It is now skipped and counted.
  func testRowWithoutValueIsSkippedInSummedAccelerometer() throws {
    let folder = try RecordingFixtureFolder()
    try folder.write(
      "version,device name,recording time,platform\n2,SM-N960F,2021-00-12_21-12-33,android\n",
      to: "v2/Metadata.csv")
    try folder.write(
      "time,z,y,x\n1000000000,,,\n1010000000,0.25,0,0\n1020000000,0,0,1\n",
      to: "v2/Accelerometer.csv")
    try folder.write("time,z,y,x\n1000000000,9.75,0,0\n1020000000,9.5,0,0\n", to: "v2/Gravity.csv")
    var stream = try RecordingReader.open(folder.url.appendingPathComponent("v2"))
    let samples = try stream.collect()
    XCTAssertEqual(
      samples.compactMap(\.accelerometer), [SIMD3(1, 0, 9.5)], "the instant after the empty row")
    XCTAssertEqual(stream.skippedRowCount, 1)
  }

  /// "inf", "nan" and absurd values in rate headers are not rates (the filter warm-up used to trap
  /// on `Int` of 10²⁰); they are ignored and the rate is estimated from the timestamps.
  func testNonFiniteEuRoCRateIsIgnored() throws {
    let folder = try RecordingFixtureFolder()
    try folder.write("rate_hz: inf\n", to: "mav0/imu0/sensor.yaml")
    try folder.write(
      "#timestamp [ns],w_RS_S_x [rad s^-1],w_RS_S_y [rad s^-1],w_RS_S_z [rad s^-1],a_RS_S_x [m s^-2],a_RS_S_y [m s^-2],a_RS_S_z [m s^-2]\n"
        + (0..<20).map { "\(1_000_000_000 + $0 * 5_000_000),0,0,0,0,0,9.8\n" }.joined(),
      to: "mav0/imu0/data.csv")
    let stream = try RecordingReader.open(folder.url)
    let rate = try XCTUnwrap(stream.descriptor.nominalSampleRate)
    XCTAssertEqual(rate, 200, accuracy: 1, "estimated from 5 ms intervals, not inf")
  }
}
