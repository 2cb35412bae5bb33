// SPDX-License-Identifier: Apache-2.0

import FuzzSupport
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

/// The executable's entry point (SwiftPM links `main` to `FuzzSourceSpecification_main`).
@_cdecl("FuzzSourceSpecification_main")
public func fuzzSourceSpecificationMain(
  _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  FuzzDriver.run(argumentCount: argc, arguments: argv, handler: fuzzSourceSpecification)
}
