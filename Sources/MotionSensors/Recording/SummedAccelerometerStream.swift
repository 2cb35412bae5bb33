// SPDX-License-Identifier: Apache-2.0

/// Adds the accelerometer vectors of two streams at equal timestamps (user acceleration plus
/// gravity, for exports without a raw accelerometer file); instants present in only one stream are
/// left out. An instant where either row has no value is skipped and counted (it used to end the
/// stream).
struct SummedAccelerometerStream: RecordingRowStream {
  let descriptor: StreamDescriptor
  private var first: any RecordingRowStream
  private var second: any RecordingRowStream

  init(
    _ first: any RecordingRowStream, _ second: any RecordingRowStream, descriptor: StreamDescriptor
  ) {
    self.first = first
    self.second = second
    self.descriptor = descriptor
  }

  /// Instants skipped here because a row had no accelerometer value.
  private var incompleteInstantCount = 0

  var skippedRowCount: Int {
    first.skippedRowCount + second.skippedRowCount + incompleteInstantCount
  }

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
        if let x = a.accelerometer, let y = b.accelerometer {
          return MotionSample(timestamp: a.timestamp, accelerometer: x + y)
        }
        incompleteInstantCount += 1
        guard let nextA = try first.next(), let nextB = try second.next() else { return nil }
        a = nextA
        b = nextB
      }
    }
  }
}
