// SPDX-License-Identifier: Apache-2.0

/// What every fuzz target's entry point shares: handing the command line to libFuzzer's driver.
///
/// Each target defines `LLVMFuzzerTestOneInput` (its input handler) and a `<Target>_main` function
/// (the symbol SwiftPM links as the executable's `main` when building with `-parse-as-library`),
/// which calls ``run(argumentCount:arguments:handler:)``.
public enum FuzzDriver {
  /// A libFuzzer input handler: the input's bytes and their count; returns 0 (other values are
  /// reserved by libFuzzer).
  public typealias InputHandler = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

  /// Runs libFuzzer with the process's command line (corpus folders and `-flag=value` options),
  /// calling `handler` for every input; returns the driver's exit status.
  public static func run(
    argumentCount: Int32, arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
    handler: InputHandler
  ) -> Int32 {
    var count = argumentCount
    var vector: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = arguments
    return libFuzzerRunDriver(&count, &vector, handler)
  }
}

/// libFuzzer's driver, from compiler-rt (linked by `-sanitize=fuzzer`).
@_silgen_name("LLVMFuzzerRunDriver")
private func libFuzzerRunDriver(
  _ argumentCount: UnsafeMutablePointer<Int32>,
  _ arguments: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
  _ handler: FuzzDriver.InputHandler
) -> Int32
