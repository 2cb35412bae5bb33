// SPDX-License-Identifier: Apache-2.0

import Foundation
import FuzzSupport
import MotionSensors

/// The input's first byte chooses the format (detection, or one of ``RecordingFormat`` forced) and
/// the invalid-row policy; the rest is the file (a CSV, a log, or a zip archive of an export).
/// Every outcome but a crash, a hang or a sanitizer report is fine: samples or a thrown error.
/// Detected or SensorLog inputs also go through ``SensorLogPedometer``.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecording(_ pointer: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data = pointer else { return 0 }
  guard size >= 1 else { return 0 }
  let selector = data[0]
  let formats: [RecordingFormat?] = [nil] + RecordingFormat.allCases.filter { $0 != .columns }
  let format = formats[Int(selector & 0x7F) % formats.count]
  let options = RecordingReader.Options(invalidRows: selector & 0x80 != 0 ? .skip : .fail)
  let url = FuzzFile.write(
    UnsafeBufferPointer(start: data + 1, count: size - 1), pathExtension: "bin")
  defer { FuzzFile.remove(url) }
  do {
    var stream = try RecordingReader.open(url, format: format, options: options)
    _ = try stream.collect(limit: 100_000)
  } catch {}
  // Apple's pedometer totals are read from SensorLog logs by a reader of their own.
  if format == nil || format == .sensorLog { _ = try? SensorLogPedometer.totals(in: url) }
  return 0
}

/// The executable's entry point (SwiftPM links `main` to `FuzzRecording_main`).
@_cdecl("FuzzRecording_main")
public func fuzzRecordingMain(
  _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  FuzzDriver.run(argumentCount: argc, arguments: argv, handler: fuzzRecording)
}
