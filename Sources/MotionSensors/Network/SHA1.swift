// SPDX-License-Identifier: Apache-2.0

/// The SHA-1 digest (FIPS 180-4), needed only for the WebSocket opening handshake.
///
/// RFC 6455 derives `Sec-WebSocket-Accept` from SHA-1, and Foundation on Linux has no hash
/// functions, so this small implementation exists. SHA-1 is broken for collision resistance; the
/// handshake uses it only as a fixed transform, never for security.
enum SHA1 {
  /// The 20-byte digest of `message`.
  static func digest(_ message: [UInt8]) -> [UInt8] {
    var h: (UInt32, UInt32, UInt32, UInt32, UInt32) =
      (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)

    // Padding: a single 1 bit, zeros up to 56 mod 64 bytes, then the bit length big-endian.
    var data = message
    let bitLength = UInt64(message.count) &* 8
    data.append(0x80)
    while data.count % 64 != 56 { data.append(0) }
    for shift in stride(from: 56, through: 0, by: -8) {
      data.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
    }

    var w = [UInt32](repeating: 0, count: 80)
    for chunkStart in stride(from: 0, to: data.count, by: 64) {
      for i in 0..<16 {
        let j = chunkStart + 4 * i
        w[i] =
          UInt32(data[j]) << 24 | UInt32(data[j + 1]) << 16 | UInt32(data[j + 2]) << 8
          | UInt32(data[j + 3])
      }
      for i in 16..<80 {
        w[i] = rotateLeft(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1)
      }
      var (a, b, c, d, e) = h
      for i in 0..<80 {
        let f: UInt32
        let k: UInt32
        switch i {
        case 0..<20:
          f = (b & c) | (~b & d)
          k = 0x5A82_7999
        case 20..<40:
          f = b ^ c ^ d
          k = 0x6ED9_EBA1
        case 40..<60:
          f = (b & c) | (b & d) | (c & d)
          k = 0x8F1B_BCDC
        default:
          f = b ^ c ^ d
          k = 0xCA62_C1D6
        }
        let temp = rotateLeft(a, 5) &+ f &+ e &+ k &+ w[i]
        e = d
        d = c
        c = rotateLeft(b, 30)
        b = a
        a = temp
      }
      h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e)
    }

    var result: [UInt8] = []
    result.reserveCapacity(20)
    for word in [h.0, h.1, h.2, h.3, h.4] {
      result += [
        UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16),
        UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word),
      ]
    }
    return result
  }

  private static func rotateLeft(_ value: UInt32, _ count: UInt32) -> UInt32 {
    (value << count) | (value >> (32 - count))
  }
}
