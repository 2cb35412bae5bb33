// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest

@testable import OpenCoreMotion

/// `runOffline` in temporary files (bounded memory) must give what it gives in memory.
final class OfflineReplayStorageTests: XCTestCase {
  private func replay(
    _ frame: CMAttitudeReferenceFrame, storage: DeviceMotionReplay.OfflineStorage
  ) throws -> [CMDeviceMotion] {
    let stream = SimulatedSensorStream(scenario: try Scenario.named("figure8"), seed: 7)
    var motions: [CMDeviceMotion] = []
    // 4 KiB blocks: the 2,600 samples span 31 blocks of inputs and 11 of each pass.
    try DeviceMotionReplay.runOffline(
      stream, frame: frame, declination: nil, storage: storage, blockByteCount: 4096
    ) { motions.append($0) }
    return motions
  }

  /// Bit for bit, in 6D and 9D: both storages round the passes to the same single precision.
  func testTemporaryFilesGiveTheSameUpdatesAsMemory() throws {
    for frame in [CMAttitudeReferenceFrame.xArbitraryZVertical, .xMagneticNorthZVertical] {
      let inMemory = try replay(frame, storage: .memory)
      let inFiles = try replay(frame, storage: .temporaryFiles)
      XCTAssertGreaterThan(inMemory.count, 2_000, "\(frame)")
      XCTAssertEqual(inMemory.count, inFiles.count, "\(frame)")
      for (a, b) in zip(inMemory, inFiles) {
        XCTAssertEqual(a.timestamp, b.timestamp)
        XCTAssertEqual(
          a.attitude.quaternion.w, b.attitude.quaternion.w, "\(frame) at \(a.timestamp)")
        XCTAssertEqual(a.attitude.quaternion.x, b.attitude.quaternion.x)
        XCTAssertEqual(a.attitude.quaternion.y, b.attitude.quaternion.y)
        XCTAssertEqual(a.attitude.quaternion.z, b.attitude.quaternion.z)
        XCTAssertEqual(a.rotationRate.z, b.rotationRate.z)
        XCTAssertEqual(a.userAcceleration.x, b.userAcceleration.x)
        if a.attitude.quaternion.w != b.attitude.quaternion.w { break }
      }
    }
  }
}
