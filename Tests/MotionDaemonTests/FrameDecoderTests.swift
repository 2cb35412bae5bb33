// SPDX-License-Identifier: Apache-2.0

import MotionDaemonProtocol
import Testing

@Suite struct FrameDecoderTests {
  @Test func splitsFramesAcrossArbitraryChunks() throws {
    var stream: [UInt8] = []
    let payloads: [[UInt8]] = [
      [], [1], Array(repeating: 7, count: 300), Array(0..<200).map { UInt8($0) },
    ]
    for payload in payloads { FrameDecoder.appendFrame(payload, to: &stream) }
    var decoder = FrameDecoder()
    var decoded: [[UInt8]] = []
    // Feed 3 bytes at a time: lengths and payloads straddle chunk boundaries.
    var index = 0
    while index < stream.count {
      decoder.append(stream[index..<min(index + 3, stream.count)])
      index += 3
      while let frame = try decoder.nextFrame() { decoded.append(Array(frame)) }
    }
    #expect(decoded == payloads)
  }

  @Test func rejectsOversizedAndMalformedLengths() {
    var decoder = FrameDecoder()
    // Varint of 2^40: far over the 16 MiB limit; must be refused before any allocation.
    decoder.append([0x80, 0x80, 0x80, 0x80, 0x80, 0x20][...])
    #expect(throws: FrameDecoder.DecodingError.self) { try decoder.nextFrame() }
    var endless = FrameDecoder()
    endless.append(ArraySlice(repeating: 0xff, count: 11))
    #expect(throws: FrameDecoder.DecodingError.malformedLength) { try endless.nextFrame() }
  }

  /// One large frame must not pin its buffer for the rest of the connection.
  @Test func releasesTheBufferOfALargeFrameOnceConsumed() throws {
    var stream: [UInt8] = []
    FrameDecoder.appendFrame([UInt8](repeating: 1, count: 2 << 20), to: &stream)
    var decoder = FrameDecoder()
    decoder.append(stream[...])
    #expect(decoder.bufferedByteCount == stream.count)
    let frame = try #require(try decoder.nextFrame())
    #expect(frame.count == 2 << 20)
    #expect(decoder.bufferedByteCount == 0)
    decoder.compact()
    #expect(decoder.bufferCapacity <= FrameDecoder.retainedCapacity)
    // A small frame afterwards still decodes.
    var small: [UInt8] = []
    FrameDecoder.appendFrame([9, 9], to: &small)
    decoder.append(small[...])
    #expect(try decoder.nextFrame().map(Array.init) == [9, 9])
  }
}
