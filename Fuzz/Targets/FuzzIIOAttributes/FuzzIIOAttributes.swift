// SPDX-License-Identifier: Apache-2.0

import FuzzSupport
import LinuxIIO

/// The input's first byte chooses the parser: a scan-element `_type` (then every value of the
/// remaining bytes is decoded with it), `sampling_frequency_available` (then a best rate is asked
/// for), or `mount_matrix`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIIOAttributes(_ pointer: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data = pointer else { return 0 }
  guard size >= 1 else { return 0 }
  let body = UnsafeBufferPointer(start: data + 1, count: size - 1)
  let text = String(decoding: body, as: UTF8.self)
  switch data[0] % 3 {
  case 0:
    guard let type = IIOScanType(parsing: text) else { return 0 }
    _ = type.description
    // Decode a record of zero bytes and one of the input's own bytes (the caller's bounds
    // contract).
    let width = type.storageBits / 8
    let record = [UInt8](body) + [UInt8](repeating: 0, count: width)
    record.withUnsafeBytes { raw in
      var offset = 0
      while offset + width <= raw.count {
        _ = type.decode(raw, at: offset)
        offset += width
      }
    }
  case 1:
    guard let set = IIOFrequencySet(parsing: text) else { return 0 }
    _ = set.description
    for requested in [0, 1, 100, 1e9, -1, .infinity, .nan] as [Double] {
      _ = set.bestRate(for: requested)
    }
  default:
    if let matrix = IIOMountMatrix(parsing: text) { _ = "\(matrix)" }
  }
  return 0
}

/// The executable's entry point (SwiftPM links `main` to `FuzzIIOAttributes_main`).
@_cdecl("FuzzIIOAttributes_main")
public func fuzzIIOAttributesMain(
  _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  FuzzDriver.run(argumentCount: argc, arguments: argv, handler: fuzzIIOAttributes)
}
