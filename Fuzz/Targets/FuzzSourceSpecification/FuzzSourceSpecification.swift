// SPDX-License-Identifier: Apache-2.0

import SourceComposition

/// The input is a COREMOTION_SOURCE string; a parsed specification must describe itself and parse
/// back from its description without a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSourceSpecification(_ pointer: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data = pointer else { return 0 }
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  if let specification = try? SourceSpecification(parsing: text) {
    _ = try? SourceSpecification(parsing: "\(specification)")
  }
  return 0
}

/// The executable's entry point: SwiftPM links `main` to `FuzzSourceSpecification_main`; hand over to libFuzzer's driver.
@_cdecl("FuzzSourceSpecification_main")
public func fuzzSourceSpecificationMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
  var count = argc
  var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
  return LLVMFuzzerRunDriver(&count, &arguments, fuzzSourceSpecification)
}

/// libFuzzer's driver (compiler-rt, linked by `-sanitize=fuzzer`).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
  _ argc: UnsafeMutablePointer<Int32>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
  _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32
