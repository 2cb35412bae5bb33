// SPDX-License-Identifier: Apache-2.0

/// Merges several timestamp-ordered streams (one per sensor file or sensor group) into one, in
/// timestamp order.
///
/// Samples from different parts with exactly the same timestamp become one sample carrying every
/// sensor that ticked (and their ground truth combined), so an export whose sensors share a clock
/// tick replays as synchronised samples, and one whose sensors tick independently replays with one
/// sensor per sample. Ties keep the order of `parts`.
struct MergedRecordingStream: RecordingRowStream {
  let descriptor: StreamDescriptor
  private var parts: [any RecordingRowStream]
  private var heads: [MotionSample?]
  private var isStarted = false
  private var isFinished = false

  init(parts: [any RecordingRowStream], descriptor: StreamDescriptor) {
    self.parts = parts
    self.heads = Array(repeating: nil, count: parts.count)
    self.descriptor = descriptor
  }

  var skippedRowCount: Int { parts.reduce(0) { $0 + $1.skippedRowCount } }

  mutating func next() throws -> MotionSample? {
    guard !isFinished else { return nil }
    do {
      if !isStarted {
        isStarted = true
        for i in parts.indices { heads[i] = try parts[i].next() }
      }
      var earliest: Int?
      for i in heads.indices {
        guard let head = heads[i] else { continue }
        if earliest == nil || head.timestamp < heads[earliest!]!.timestamp { earliest = i }
      }
      guard let first = earliest else {
        isFinished = true
        return nil
      }
      var sample = heads[first]!
      heads[first] = try parts[first].next()
      for i in heads.indices where i != first {
        // A part may hold several samples at this instant only if its own rows repeat it; take one.
        if let head = heads[i], head.timestamp == sample.timestamp {
          sample.absorb(head)
          heads[i] = try parts[i].next()
        }
      }
      return sample
    } catch {
      isFinished = true
      throw error
    }
  }
}

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

extension MotionSample {
  /// Copies into this sample every value `other` has and this one lacks.
  mutating func absorb(_ other: MotionSample) {
    accelerometer = accelerometer ?? other.accelerometer
    gyroscope = gyroscope ?? other.gyroscope
    magnetometer = magnetometer ?? other.magnetometer
    pressure = pressure ?? other.pressure
    temperature = temperature ?? other.temperature
    guard let theirs = other.groundTruth else { return }
    guard var truth = groundTruth else {
      groundTruth = theirs
      return
    }
    truth.earthFromSensor = truth.earthFromSensor ?? theirs.earthFromSensor
    truth.angularVelocity = truth.angularVelocity ?? theirs.angularVelocity
    truth.gyroscopeBias = truth.gyroscopeBias ?? theirs.gyroscopeBias
    truth.gravity = truth.gravity ?? theirs.gravity
    truth.linearAcceleration = truth.linearAcceleration ?? theirs.linearAcceleration
    truth.position = truth.position ?? theirs.position
    truth.isMovementPhase = truth.isMovementPhase ?? theirs.isMovementPhase
    groundTruth = truth
  }
}

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
