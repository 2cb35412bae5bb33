// SPDX-License-Identifier: Apache-2.0

import FuzzSupport
@_spi(Fuzzing) import PhoneStreamDecoding

/// The phone-stream decoders (PhoneStreamDecoding only: no network stack is linked).
///
/// Input layout: the first byte chooses the stream and its options (bits 0–1: 0 Sensor Logger,
/// 1 SensorServer, 2 phyphox; the other bits are the options: Sensor Logger's convention and
/// clock, SensorServer's reconnection interval); the rest is the messages of one connection,
/// separated by the byte 0x1E (ASCII record separator, which JSON text never holds unescaped). For
/// phyphox the first message is the `/config` answer and the others are `/get` answers.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPhoneStreams(_ pointer: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data = pointer, size >= 1 else { return 0 }
  let selector = data[0]
  let messages = UnsafeBufferPointer(start: data + 1, count: size - 1)
    .split(separator: 0x1E, omittingEmptySubsequences: false).map { [UInt8]($0) }
  switch selector & 3 {
  case 0:
    _ = PhoneStreamFuzzEntry.sensorLogger(bodies: messages, convention: selector >> 2)
  case 1:
    _ = PhoneStreamFuzzEntry.sensorServer(messages: messages, reconnectEvery: selector >> 2)
  default:
    _ = PhoneStreamFuzzEntry.phyphox(
      configuration: messages.first ?? [], answers: Array(messages.dropFirst()))
  }
  return 0
}

/// The executable's entry point (SwiftPM links `main` to `FuzzPhoneStreams_main`).
@_cdecl("FuzzPhoneStreams_main")
public func fuzzPhoneStreamsMain(
  _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  FuzzDriver.run(argumentCount: argc, arguments: argv, handler: fuzzPhoneStreams)
}
