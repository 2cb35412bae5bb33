// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

/// The input's first byte chooses the format (detection, or one of ``RecordingFormat`` forced) and
/// the invalid-row policy; the rest is the file (a CSV, a log, or a zip archive of an export).
/// Every outcome but a crash, a hang or a sanitizer report is fine: samples or a thrown error.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecording(_ pointer: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data = pointer else { return 0 }
  guard size >= 1 else { return 0 }
  let selector = data[0]
  let formats: [RecordingFormat?] = [nil] + RecordingFormat.allCases.filter { $0 != .columns }
  let format = formats[Int(selector & 0x7F) % formats.count]
  let options = RecordingReader.Options(invalidRows: selector & 0x80 != 0 ? .skip : .fail)
  let url = FuzzFile.write(UnsafeBufferPointer(start: data + 1, count: size - 1))
  defer { FuzzFile.remove(url) }
  do {
    var stream = try RecordingReader.open(url, format: format, options: options)
    _ = try stream.collect(limit: 100_000)
  } catch {}
  return 0
}

/// The input as a file in memory-backed /dev/shm (the readers take URLs).
enum FuzzFile {
  static func write(_ bytes: UnsafeBufferPointer<UInt8>) -> URL {
    let folder = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    let url = URL(fileURLWithPath: "\(folder)/opencoremotion-fuzz-\(getpid()).bin")
    FileManager.default.createFile(atPath: url.path, contents: Data(buffer: bytes))
    return url
  }

  static func remove(_ url: URL) { try? FileManager.default.removeItem(at: url) }
}

/// The executable's entry point: SwiftPM links `main` to `FuzzRecording_main`; hand over to libFuzzer's driver.
@_cdecl("FuzzRecording_main")
public func fuzzRecordingMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
  var count = argc
  var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
  return LLVMFuzzerRunDriver(&count, &arguments, fuzzRecording)
}

/// libFuzzer's driver (compiler-rt, linked by `-sanitize=fuzzer`).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
  _ argc: UnsafeMutablePointer<Int32>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
  _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32
