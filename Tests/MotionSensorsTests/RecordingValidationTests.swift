// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import MotionSensors

final class RecordingValidationTests: XCTestCase {
  private let header = "# OpenCoreMotion CSV\n# version: 1\nt,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z\n"

  /// Reads everything and returns the error thrown, failing if there is none.
  private func readError(
    _ url: URL, format: RecordingFormat? = nil, options: RecordingReader.Options = .init(),
    line: UInt = #line
  ) -> RecordingError? {
    do {
      var stream = try RecordingReader.open(url, format: format, options: options)
      _ = try stream.collect()
      XCTFail("expected an error", line: line)
      return nil
    } catch let error as RecordingError {
      return error
    } catch {
      XCTFail("unexpected error type \(error)", line: line)
      return nil
    }
  }

  func testMalformedRowNamesFileLineAndColumn() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(header + "0,0,0,9.8,0,0,0\n0.01,0,abc,9.8,0,0,0\n", to: "bad.csv")
    let error = try XCTUnwrap(readError(url))
    XCTAssertEqual(error.kind, .malformedRow)
    XCTAssertEqual(error.line, 5)
    XCTAssertEqual(error.column, "acc_y")
    XCTAssertTrue(
      error.description.hasPrefix(url.path + ":5: column \"acc_y\": "), error.description)
    XCTAssertTrue(error.description.contains("\"abc\""), error.description)
  }

  func testWrongCellCountAndPartialVectorsAreMalformed() throws {
    let folder = try RecordingFixtureFolder()
    let short = try folder.write(header + "0,0,0,9.8,0,0\n", to: "short.csv")
    let e1 = try XCTUnwrap(readError(short))
    XCTAssertEqual(e1.kind, .malformedRow)
    XCTAssertEqual(e1.line, 4)
    XCTAssertTrue(e1.message.contains("expected 7 cells, found 6"), e1.message)

    let partial = try folder.write(header + "0,1,,3,,,\n", to: "partial.csv")
    let e2 = try XCTUnwrap(readError(partial))
    XCTAssertEqual(e2.kind, .malformedRow)
    XCTAssertEqual(e2.column, "acc_y")

    let noTime = try folder.write(header + ",1,2,3,,,\n", to: "notime.csv")
    XCTAssertEqual(readError(noTime)?.column, "t")
  }

  func testEmptyCellsMeanTheSensorDidNotTick() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(
      header + "0,1,2,3,,,\n0.005,,,,4,5,6\r\n\n0.01,1,2,3,4,5,6\n", to: "ticks.csv")
    let samples = try RecordingReader.readSamples(url)
    XCTAssertEqual(samples.count, 3)
    XCTAssertEqual(samples[0].sensors, [.accelerometer])
    XCTAssertEqual(samples[1].sensors, [.gyroscope])
    XCTAssertEqual(samples[2].sensors, .inertial)
  }

  func testBackwardsTimestampIsAnErrorWithLineNumber() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(
      header + "1,0,0,9.8,0,0,0\n1,0,0,9.8,0,0,0\n0.5,0,0,9.8,0,0,0\n", to: "back.csv")
    let error = try XCTUnwrap(readError(url))
    XCTAssertEqual(error.kind, .timestampWentBackwards)
    XCTAssertEqual(error.line, 6)
  }

  func testNonFiniteValuesFailByDefaultAndCanBeSkippedAndCounted() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(
      header + "0,0,0,9.8,0,0,0\n0.01,nan,0,9.8,0,0,0\n0.02,0,0,9.8,0,-inf,0\n0.03,0,0,9.8,0,0,0\n"
        + "0.025,0,0,9.8,0,0,0\n0.04,0,0,9.8,0,0,0\n",
      to: "nan.csv")
    let error = try XCTUnwrap(readError(url))
    XCTAssertEqual(error.kind, .invalidValue)
    XCTAssertEqual(error.line, 5)
    XCTAssertEqual(error.column, "acc_x")

    var stream = try RecordingReader.open(url, options: .init(invalidRows: .skip))
    let samples = try stream.collect()
    XCTAssertEqual(samples.map(\.timestamp), [0, 0.03, 0.04])
    XCTAssertEqual(stream.skippedRowCount, 3, "two non-finite rows and one backwards timestamp")
  }

  func testSkipModeStillFailsOnTextThatDoesNotParse() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(header + "0,0,0,9.8,0,0,0\n0.01,x,0,9.8,0,0,0\n", to: "text.csv")
    XCTAssertEqual(readError(url, options: .init(invalidRows: .skip))?.kind, .malformedRow)
  }

  func testMissingFileIsAClearError() {
    let url = URL(fileURLWithPath: "/nonexistent/folder/recording.csv")
    XCTAssertThrowsError(try RecordingReader.open(url)) { error in
      let error = error as? RecordingError
      XCTAssertEqual(error?.kind, .fileNotFound)
      XCTAssertEqual(
        error?.description, "/nonexistent/folder/recording.csv: no such file or folder")
    }
  }

  func testUnknownFormatListsSupportedFormats() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write("hello,world\n1,2\n", to: "mystery.csv")
    XCTAssertThrowsError(try RecordingReader.open(url)) { error in
      let error = error as? RecordingError
      XCTAssertEqual(error?.kind, .unknownFormat)
      for format in RecordingFormat.allCases {
        XCTAssertTrue(
          error?.description.contains(format.rawValue) ?? false, "\(String(describing: error))")
      }
    }
    let empty = try folder.write("", to: "empty.csv")
    XCTAssertThrowsError(try RecordingReader.open(empty)) { error in
      XCTAssertEqual((error as? RecordingError)?.kind, .unknownFormat)
    }
  }

  func testForcedFormatThatDoesNotFitIsAHeaderError() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(header + "0,0,0,9.8,0,0,0\n", to: "own.csv")
    XCTAssertThrowsError(try RecordingReader.open(url, format: .broad)) { error in
      let error = error as? RecordingError
      XCTAssertEqual(error?.kind, .malformedHeader)
      XCTAssertTrue(error?.message.contains("gyr_x") ?? false, "\(String(describing: error))")
    }
  }

  func testNewerVersionIsRejected() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(
      "# OpenCoreMotion CSV\n# version: 9\nt,acc_x,acc_y,acc_z\n", to: "v9.csv")
    XCTAssertThrowsError(try RecordingReader.open(url)) { error in
      XCTAssertEqual((error as? RecordingError)?.kind, .malformedHeader)
    }
  }

  func testErrorMetWhileEstimatingTheRateComesAfterTheGoodSamples() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write("time,x\n0,1\n0.01,2\n0.02,oops\n", to: "m.csv")
    let mapping = try ColumnMapping(parsing: "t=time,p=x")
    var stream = try RecordingReader.open(url, options: .init(columnMapping: mapping))
    XCTAssertEqual(stream.descriptor.nominalSampleRate ?? 0, 100, accuracy: 1e-9)
    XCTAssertEqual(try stream.next()?.pressure, 1)
    XCTAssertEqual(try stream.next()?.pressure, 2)
    XCTAssertThrowsError(try stream.next()) { error in
      XCTAssertEqual((error as? RecordingError)?.line, 4)
    }
    XCTAssertNil(try stream.next())
  }

  func testStreamIsFinishedAfterAnError() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(header + "0,x,0,9.8,0,0,0\n1,0,0,9.8,0,0,0\n", to: "stop.csv")
    var stream = try RecordingReader.open(url)
    XCTAssertThrowsError(try stream.next())
    XCTAssertNil(try stream.next())
  }
}
