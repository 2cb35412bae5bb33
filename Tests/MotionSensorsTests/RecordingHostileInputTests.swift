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

  /// An archive member is inflated into an unnamed temporary file and read from it in windows,
  /// like a plain file, so memory does not grow with the member; nothing is left in the temporary
  /// folder, whether the read succeeds or fails.
  func testArchiveMembersAreReadInWindowsFromATemporaryFileLeftBehindNowhere() throws {
    func leftovers() throws -> [String] {
      try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
        .filter { $0.hasPrefix("opencoremotion-member-") }
    }
    let before = try leftovers()
    let folder = try RecordingFixtureFolder()
    // 60 000 rows, about 3 MB: three 1 MiB windows.
    var table =
      "\"Time (s)\",\"Acceleration x (m/s^2)\",\"Acceleration y (m/s^2)\",\"Acceleration z (m/s^2)\",\"Absolute acceleration (m/s^2)\"\n"
    for row in 0..<60_000 {
      table += "\(Double(row) * 0.01),\(Double(row % 97) * 0.125),-0.5,9.75,9.8\n"
    }
    let zip = try folder.writeZip([("Experiment/Accelerometer.csv", table)], to: "big.zip")
    let samples = try RecordingReader.readSamples(zip)
    XCTAssertEqual(samples.count, 60_000)
    XCTAssertEqual(samples[59_999].timestamp, 599.99, accuracy: 1e-9)
    XCTAssertEqual(samples[59_999].accelerometer, SIMD3(Double(59_999 % 97) * 0.125, -0.5, 9.75))
    XCTAssertEqual(try leftovers(), before)
    // A member that fails to inflate leaves nothing either.
    let url = folder.url.appendingPathComponent("bomb.zip")
    let archive = try Archive(url: url, accessMode: .create)
    try archive.addEntry(
      with: "Accelerometer.csv", type: .file, uncompressedSize: Int64(16 << 20),
      compressionMethod: .deflate
    ) { _, chunk in Data(count: chunk) }
    XCTAssertThrowsError(try RecordingContainer(url).bytes("Accelerometer.csv"))
    XCTAssertEqual(try leftovers(), before)
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
    // 1.01 s pairs with the gravity 10 ms before it (the earlier one on a tie).
    XCTAssertEqual(
      samples.compactMap(\.accelerometer), [SIMD3(0, 0, 10), SIMD3(1, 0, 9.5)],
      "the instants after the empty row")
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
