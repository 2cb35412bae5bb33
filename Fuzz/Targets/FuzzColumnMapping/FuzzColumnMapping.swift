// SPDX-License-Identifier: Apache-2.0

import Foundation
import FuzzSupport
import MotionSensors

/// The input is a column mapping, a newline, then a CSV to read with it (if the mapping parses).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzColumnMapping(_ pointer: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data = pointer else { return 0 }
  let bytes = UnsafeBufferPointer(start: data, count: size)
  let split = bytes.firstIndex(of: 0x0A) ?? size
  let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[0..<split]), as: UTF8.self)
  guard let mapping = try? ColumnMapping(parsing: text) else { return 0 }
  let rest =
    split < size
    ? UnsafeBufferPointer(rebasing: bytes[(split + 1)...])
    : UnsafeBufferPointer(start: data, count: 0)
  let url = FuzzFile.write(rest, pathExtension: "csv")
  defer { FuzzFile.remove(url) }
  for policy in [RecordingReader.InvalidRowPolicy.fail, .skip] {
    do {
      var stream = try RecordingReader.open(
        url, options: RecordingReader.Options(invalidRows: policy, columnMapping: mapping))
      _ = try stream.collect(limit: 100_000)
    } catch {}
  }
  return 0
}

/// The executable's entry point (SwiftPM links `main` to `FuzzColumnMapping_main`).
@_cdecl("FuzzColumnMapping_main")
public func fuzzColumnMappingMain(
  _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  FuzzDriver.run(argumentCount: argc, arguments: argv, handler: fuzzColumnMapping)
}
