// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest
import _MotionTestSupport

@testable import MotionSensors

/// Damaged input must give a ``RecordingError`` (or parse), never a crash or another error type.
final class RecordingRobustnessTests: XCTestCase {
  private let seeds: [(RecordingFormat?, String)] = [
    (
      nil,
      "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z,ref_qw,ref_qx,ref_qy,ref_qz,movement\n"
        + "0.000000,0.1,0.2,0.3,1,2,9.8,10,20,-40,1,0,0,0,0\n0.003500,-0.1,3.9e-19,0,1.5,-2,9.7,11,21,-41,nan,nan,nan,nan,1\n"
    ),
    (
      nil,
      "# OpenCoreMotion CSV\n# version: 1\n# nominal-sample-rate-hz: 100\nt,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z,true_qw,true_qx,true_qy,true_qz,true_movement\n"
        + "0.0,0.0,0.0,9.81,,,,1.0,0.0,0.0,0.0,1\n0.01,,,,0.5,-0.0,1e-300,,,,,\n"
    ),
    (
      nil,
      "#timestamp [ns],w_RS_S_x [rad s^-1],w_RS_S_y [rad s^-1],w_RS_S_z [rad s^-1],a_RS_S_x [m s^-2],a_RS_S_y [m s^-2],a_RS_S_z [m s^-2]\r\n"
        + "1403636579758555392,-0.09,0.14,0.02,8.14,-0.37,-2.40\r\n1403636579763555584,-0.09,0.14,0.02,8.03,-0.40,-2.40\r\n"
    ),
    (
      nil,
      "\"Time (s)\",\"Gyroscope x (rad/s)\",\"Gyroscope y (rad/s)\",\"Gyroscope z (rad/s)\"\n5.8E-3,1E-1,2E-1,3E-1\n1.5E-2,0,0,0\n"
    ),
    (
      nil,
      "Time (s),Gyroscope X (deg/s),Gyroscope Y (deg/s),Gyroscope Z (deg/s),Accelerometer X (g),Accelerometer Y (g),Accelerometer Z (g)\n0,1,2,3,0,0,1\n0.01,1,2,3,0,0,1\n"
    ),
    (
      nil,
      "loggingTime(txt),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),accelerometerAccelerationY(G),accelerometerAccelerationZ(G)\n"
        + "2025-03-11T14:44:11.899-04:00,9130.01,0,0,-1\n2025-03-11T14:44:11.909-04:00,9130.02,0,0,-1\n"
    ),
  ]

  func testRandomlyDamagedFilesFailCleanly() throws {
    let seed = testSeed()
    var rng = SplitMix64(seed: seed)
    let folder = try RecordingFixtureFolder()
    let alphabet = Array(",;\n\r\"#-+.eE0123456789nanNAN \t()xµ".unicodeScalars)
    var parsed = 0
    var failed = 0
    for iteration in 0..<240 {
      let (format, text) = seeds[iteration % seeds.count]
      var scalars = Array(text.unicodeScalars)
      for _ in 0..<Int.random(in: 1...4, using: &rng) {
        guard !scalars.isEmpty else { break }
        let position = Int.random(in: 0..<scalars.count, using: &rng)
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: scalars.remove(at: position)
        case 1: scalars.insert(alphabet.randomElement(using: &rng)!, at: position)
        default: scalars[position] = alphabet.randomElement(using: &rng)!
        }
      }
      var damaged = ""
      damaged.unicodeScalars.append(contentsOf: scalars)
      let url = try folder.write(damaged, to: "damaged-\(iteration).csv")
      do {
        var stream = try RecordingReader.open(url, format: format)
        _ = try stream.collect()
        parsed += 1
      } catch let error as RecordingError {
        failed += 1
        XCTAssertFalse(error.message.isEmpty, "seed \(seed), iteration \(iteration)")
        if error.kind == .malformedRow || error.kind == .timestampWentBackwards
          || error.kind == .invalidValue
        {
          XCTAssertNotNil(
            error.line, "row errors carry a line; seed \(seed), iteration \(iteration): \(error)")
        }
      } catch {
        XCTFail("seed \(seed), iteration \(iteration): not a RecordingError: \(error)\n\(damaged)")
      }
    }
    // Both outcomes must occur, or the damage is too mild or too harsh to test anything.
    XCTAssertGreaterThan(parsed, 20, "seed \(seed)")
    XCTAssertGreaterThan(failed, 20, "seed \(seed)")
  }

  func testDamagedZipIsAClearError() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write("PK\u{03}\u{04}this is not really a zip", to: "broken.zip")
    XCTAssertThrowsError(try RecordingReader.open(url)) { error in
      XCTAssertNotNil(error as? RecordingError, "\(error)")
    }
    XCTAssertThrowsError(try RecordingReader.open(url, format: .sensorLogger)) { error in
      XCTAssertEqual((error as? RecordingError)?.kind, .unreadable, "\(error)")
    }
  }

  func testFolderGivenForASingleFileFormat() throws {
    let folder = try RecordingFixtureFolder()
    XCTAssertThrowsError(try RecordingReader.open(folder.url, format: .broad)) { error in
      XCTAssertEqual((error as? RecordingError)?.kind, .unknownFormat, "\(error)")
    }
    XCTAssertThrowsError(try RecordingReader.open(folder.url)) { error in
      XCTAssertEqual((error as? RecordingError)?.kind, .unknownFormat, "\(error)")
    }
  }
}
