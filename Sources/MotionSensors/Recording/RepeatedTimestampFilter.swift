// SPDX-License-Identifier: Apache-2.0

/// Drops samples whose timestamp repeats the previous one's: sources such as SensorLog repeat a
/// sensor's last value (and timestamp) on every row until the sensor ticks again.
struct RepeatedTimestampFilter: RecordingRowStream {
  private var base: any RecordingRowStream
  private var lastTimestamp: Double?

  init(_ base: any RecordingRowStream) { self.base = base }

  var descriptor: StreamDescriptor { base.descriptor }
  var skippedRowCount: Int { base.skippedRowCount }

  mutating func next() throws -> MotionSample? {
    while let sample = try base.next() {
      if sample.timestamp == lastTimestamp { continue }
      lastTimestamp = sample.timestamp
      return sample
    }
    return nil
  }
}
