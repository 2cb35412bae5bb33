// SPDX-License-Identifier: Apache-2.0

/// Adds the accelerometer vectors of two streams at equal timestamps (user acceleration plus
/// gravity, for exports without a raw accelerometer file); instants present in only one stream are
/// left out.
struct SummedAccelerometerStream: RecordingRowStream {
  let descriptor: StreamDescriptor
  private var first: any RecordingRowStream
  private var second: any RecordingRowStream

  init(_ first: any RecordingRowStream, _ second: any RecordingRowStream, descriptor: StreamDescriptor) {
    self.first = first
    self.second = second
    self.descriptor = descriptor
  }

  var skippedRowCount: Int { first.skippedRowCount + second.skippedRowCount }

  mutating func next() throws -> MotionSample? {
    guard var a = try first.next(), var b = try second.next() else { return nil }
    while true {
      if a.timestamp < b.timestamp {
        guard let next = try first.next() else { return nil }
        a = next
      } else if b.timestamp < a.timestamp {
        guard let next = try second.next() else { return nil }
        b = next
      } else {
        guard let x = a.accelerometer, let y = b.accelerometer else { return nil }
        return MotionSample(timestamp: a.timestamp, accelerometer: x + y)
      }
    }
  }
}
