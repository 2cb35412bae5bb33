// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The packed form of consecutive recorded accelerometer samples (one row of `accel_block`).
///
/// Per sample 16 bytes, little-endian: UInt32 microseconds since the block's first timestamp, then
/// x, y, z as Float32 specific force in m/s² (a 16-bit accelerometer's resolution is far coarser
/// than Float32's). A block spans at most ``maximumSpan`` seconds, so the offset cannot overflow.
enum AccelerometerBlock {
  static let bytesPerSample = 16
  /// Longest time a block covers, s.
  static let maximumSpan = 60.0
  /// The largest payload read back: ``maximumSpan`` at 1 kHz, twenty times the samples motiond
  /// records (50 Hz). A larger one was not written by motiond, and a read that stops after a
  /// number of samples and resumes in the same block must not decode megabytes again each time.
  static let maximumPayloadBytes = 60_000 * bytesPerSample

  static func encode(_ samples: ArraySlice<HistoryBatch.RecordedSample>) -> Data {
    var data = Data(capacity: samples.count * bytesPerSample)
    guard let first = samples.first else { return data }
    for sample in samples {
      let offset = max(0, min((sample.timestamp - first.timestamp) * 1e6, Double(UInt32.max)))
        .rounded()
      append(UInt32(offset), to: &data)
      append(Float(sample.acceleration.x).bitPattern, to: &data)
      append(Float(sample.acceleration.y).bitPattern, to: &data)
      append(Float(sample.acceleration.z).bitPattern, to: &data)
    }
    return data
  }

  private static func append(_ value: UInt32, to data: inout Data) {
    withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
  }

  /// Decodes a stored block; a payload whose length is not a whole number of samples (damage) is
  /// read up to its last whole sample.
  ///
  /// Samples before `startIndex` are not decoded; `body` gets each sample's index in the block
  /// and returns whether to go on.
  static func decode(
    _ payload: Data, startTimestamp: Double, startDate: Double, firstIdentifier: UInt64,
    startIndex: Int = 0,
    into body: (_ index: Int, UInt64, Double, Double, SIMD3<Double>) -> Bool
  ) {
    let count = payload.count / bytesPerSample
    guard startIndex < count else { return }
    payload.withUnsafeBytes { raw in
      for index in max(0, startIndex)..<count {
        let base = index * bytesPerSample
        let offset =
          Double(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: base, as: UInt32.self)))
          * 1e-6
        let x = Float(
          bitPattern: UInt32(
            littleEndian: raw.loadUnaligned(fromByteOffset: base + 4, as: UInt32.self)))
        let y = Float(
          bitPattern: UInt32(
            littleEndian: raw.loadUnaligned(fromByteOffset: base + 8, as: UInt32.self)))
        let z = Float(
          bitPattern: UInt32(
            littleEndian: raw.loadUnaligned(fromByteOffset: base + 12, as: UInt32.self)))
        guard
          body(
            index, firstIdentifier &+ UInt64(index), startTimestamp + offset, startDate + offset,
            SIMD3(Double(x), Double(y), Double(z)))
        else { return }
      }
    }
  }
}
