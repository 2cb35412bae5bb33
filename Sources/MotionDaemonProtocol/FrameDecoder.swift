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

  /// A buffer larger than this is released, not kept, once everything in it has been consumed:
  /// one large frame must not pin its memory for the rest of the connection.
  package static let retainedCapacity = 256 << 10

  /// Appends received bytes.
  package mutating func append(_ bytes: ArraySlice<UInt8>) {
    compact()
    buffer.append(contentsOf: bytes)
  }

  /// Bytes received and not yet returned as frames (a frame's beginning, when not zero).
  package var bufferedByteCount: Int { buffer.count - start }

  /// Bytes the buffer holds allocated (for tests of ``compact()``).
  package var bufferCapacity: Int { buffer.capacity }

  /// Drops the consumed bytes, and frees the buffer altogether when it is empty and larger than
  /// ``retainedCapacity``. Call it once the frames returned so far are no longer used.
  package mutating func compact() {
    if start == buffer.count {
      if buffer.capacity > Self.retainedCapacity {
        buffer = []
      } else {
        buffer.removeAll(keepingCapacity: true)
      }
      start = 0
    } else if start > 0, start >= buffer.count / 2 {
      buffer.removeFirst(start)
      start = 0
    }
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
    guard buffer.count - index >= count else {
      // Room for exactly this frame once its length is known: growing by doubling would leave a
      // 16 MiB frame in a 32 MiB buffer. Reserving touches no page the peer has not sent.
      if count >= Self.retainedCapacity, buffer.capacity < index + count {
        buffer.reserveCapacity(index + count)
      }
      return nil
    }
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
