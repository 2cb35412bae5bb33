// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import MotionSensors

/// A timestamp that jumps far forward (one row stamped 99 999 999 among rows 0, 0.01, …) used to be
/// kept, and every good row after it was then dropped as going backwards; a replay slept until the
/// glitch was due (28 hours at 1000×). The reader now holds a row more than
/// ``CSVTableStream/suspiciousForwardJump`` ahead until the next row decides: back on the old
/// timeline makes it the glitch (skipped and counted, or an error naming its line), at or after
/// it makes it a gap that is kept. A wall-clock replay waits at most
/// ``StreamPlayer/maximumGapWait`` for any jump.
final class RecordingTimestampJumpTests: XCTestCase {
  /// The reviewer's recording: five rows, the third stamped 99 999 999 (line 5).
  private let glitched =
    "# OpenCoreMotion CSV\nt,acc_x,acc_y,acc_z\n0,0,0,9.81\n0.01,0,0,9.81\n99999999,0,0,9.81\n"
    + "0.03,0,0,9.81\n0.04,0,0,9.81\n"

  /// Under `.skip` the glitch is the row left out (one counted skip), and the good rows after it
  /// are all kept; before, the glitch was kept and the two good rows after it were dropped.
  func testTheFarAheadRowIsTheGlitchSkippedAndCounted() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(glitched, to: "glitch.csv")
    var stream = try RecordingReader.open(url, options: .init(invalidRows: .skip))
    let samples = try stream.collect()
    XCTAssertEqual(samples.map(\.timestamp), [0, 0.01, 0.03, 0.04])
    XCTAssertEqual(stream.skippedRowCount, 1)
  }

  /// Under `.fail` the error names the glitch's line (5) and says what is wrong; before, the error
  /// blamed the good row after it (line 6, "went backwards").
  func testTheGlitchFailsNamingItsLine() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(glitched, to: "glitch.csv")
    var stream = try RecordingReader.open(url)
    XCTAssertThrowsError(try stream.collect()) { error in
      guard let error = error as? RecordingError else { return XCTFail("\(error)") }
      XCTAssertEqual(error.kind, .invalidValue)
      XCTAssertEqual(error.line, 5)
      XCTAssertEqual(error.column, "t")
      XCTAssertTrue(
        error.message.contains("99999999") && error.message.contains("glitched timestamp"),
        error.message)
    }
  }

  /// A far row whose next row continues after it is a gap in the recording (a logger paused),
  /// kept with everything after it, also when gaps follow each other and when the far row is the
  /// last one; rows slightly ahead are never held.
  func testGapsFollowedByTheirOwnTimelineAreKept() throws {
    let folder = try RecordingFixtureFolder()
    let head = "# OpenCoreMotion CSV\nt,acc_x,acc_y,acc_z\n"
    let times: [[Double]] = [
      [0, 0.01, 5000, 5000.01, 5000.02],
      [0, 0.01, 1000, 3000, 3000.01],
      [0, 0.01, 0.02, 86_400],
      [0, 30, 60, 90],
    ]
    for (index, rows) in times.enumerated() {
      let url = try folder.write(
        head + rows.map { "\($0),0,0,9.81\n" }.joined(), to: "gap-\(index).csv")
      var stream = try RecordingReader.open(url)
      XCTAssertEqual(try stream.collect().map(\.timestamp), rows)
      XCTAssertEqual(stream.skippedRowCount, 0)
    }
  }

  /// Replayed on a virtual clock, the glitched recording plays its four good rows in 0.04 s and
  /// finishes; before, playback stopped at 0.01 s waiting for the glitch to fall due.
  func testReplayOfTheGlitchedRecordingIsNotStalled() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(glitched, to: "glitch.csv")
    let clock = VirtualClock()
    let player = StreamPlayer(
      try RecordingReader.open(url, options: .init(invalidRows: .skip)), pacing: .virtual(clock))
    let received = Locked<[Double]>([])
    let finished = Locked(false)
    let subscription = player.subscribe(requestedSampleRate: 100) { event in
      switch event {
      case .sample(let sample): received.withLock { $0.append(sample.timestamp) }
      case .finished: finished.withLock { $0 = true }
      case .failure(let failure): XCTFail("\(failure)")
      }
    }
    clock.advance(by: 0.05)
    XCTAssertEqual(received.withLock { $0 }, [0, 0.01, 0.03, 0.04])
    XCTAssertTrue(finished.withLock { $0 })
    subscription.cancel()
  }

  /// Under wall-clock pacing a jump of 10⁶ s at 1000× (1000 s of waiting) is waited out for at most
  /// `maximumGapWait` (0.05 s here): every sample arrives, in order, with its own timestamp, well
  /// within the test's timeout.
  func testWallClockReplayWaitsAtMostTheMaximumGapWait() throws {
    let times = [0, 0.01, 1e6, 1e6 + 0.01]
    let stream = ArraySampleStream(
      times.map { MotionSample(timestamp: $0, accelerometer: SIMD3(0, 0, 9.81)) },
      descriptor: StreamDescriptor(name: "jump", sensors: .accelerometer, nominalSampleRate: 100))
    let player = StreamPlayer(stream, pacing: .realTime(speed: 1000), maximumGapWait: 0.05)
    let received = Locked<[Double]>([])
    let finished = DispatchSemaphore(value: 0)
    let started = ProcessInfo.processInfo.systemUptime
    let subscription = player.subscribe(requestedSampleRate: 100) { event in
      switch event {
      case .sample(let sample): received.withLock { $0.append(sample.timestamp) }
      case .finished: finished.signal()
      case .failure(let failure): XCTFail("\(failure)")
      }
    }
    XCTAssertEqual(finished.wait(timeout: .now() + 20), .success, "the jump stalled the replay")
    subscription.cancel()
    XCTAssertEqual(received.withLock { $0 }, times)
    XCTAssertGreaterThanOrEqual(ProcessInfo.processInfo.systemUptime - started, 0.05)
  }

  /// The wait is clamped to [0, 3600] s; NaN takes the default.
  func testMaximumGapWaitIsClamped() {
    let stream = ArraySampleStream(
      [],
      descriptor: StreamDescriptor(name: "empty", sensors: .accelerometer, nominalSampleRate: nil))
    func wait(_ value: Double) -> Double {
      StreamPlayer(stream, pacing: .realTime(speed: 1), maximumGapWait: value).maximumGapWait
    }
    XCTAssertEqual(wait(-1), 0)
    XCTAssertEqual(wait(1e9), 3600)
    XCTAssertEqual(wait(.nan), StreamPlayer.defaultMaximumGapWait)
    XCTAssertEqual(
      StreamPlayer(stream, pacing: .realTime(speed: 1)).maximumGapWait,
      StreamPlayer.defaultMaximumGapWait)
  }
}
