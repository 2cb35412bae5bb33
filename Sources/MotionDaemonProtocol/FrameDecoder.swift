// SPDX-License-Identifier: Apache-2.0

/// Splits a byte stream into varint-length-delimited frames (protobuf's "delimited" format).
///
/// The peer is untrusted: lengths are checked against ``maximumFrameLength`` before anything is
/// allocated, and a varint longer than 10 bytes is an error, never a trap.
package struct FrameDecoder: Sendable {
  /// The longest frame accepted, bytes.
  package static let maximumFrameLength = 16 << 20

  package enum DecodingError: Error, Equatable, Sendable {
    case frameTooLong(UInt64)
    case malformedLength
  }

  private var buffer: [UInt8] = []
  private var start = 0

  package init() {}

  /// Appends received bytes.
  package mutating func append(_ bytes: ArraySlice<UInt8>) {
    if start > 0, start >= buffer.count / 2 {
      buffer.removeFirst(start)
      start = 0
    }
    buffer.append(contentsOf: bytes)
  }

  /// The next complete frame, or `nil` when more bytes are needed.
  package mutating func nextFrame() throws -> ArraySlice<UInt8>? {
    var length: UInt64 = 0
    var shift: UInt64 = 0
    var index = start
    while true {
      guard index < buffer.count else { return nil }
      let byte = buffer[index]
      index += 1
      guard shift < 64 else { throw DecodingError.malformedLength }
      length |= UInt64(byte & 0x7f) << shift
      if byte & 0x80 == 0 { break }
      shift += 7
    }
    guard length <= UInt64(Self.maximumFrameLength) else {
      throw DecodingError.frameTooLong(length)
    }
    let count = Int(length)
    guard buffer.count - index >= count else { return nil }
    start = index + count
    return buffer[index..<(index + count)]
  }

  /// Appends `payload`'s length as a varint and then the payload to `output`.
  package static func appendFrame(_ payload: [UInt8], to output: inout [UInt8]) {
    var length = UInt64(payload.count)
    while length >= 0x80 {
      output.append(UInt8(length & 0x7f) | 0x80)
      length >>= 7
    }
    output.append(UInt8(length))
    output.append(contentsOf: payload)
  }
}
