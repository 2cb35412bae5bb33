// SPDX-License-Identifier: Apache-2.0

/// A finite or endless sequence of samples in non-decreasing timestamp order, produced on demand.
///
/// The simulator and the recording readers are sample streams: they do no pacing and no threading,
/// so replaying a file as fast as possible is a plain loop. ``StreamPlayer`` turns a stream into a
/// live ``SensorSource`` paced by a clock.
public protocol SampleStream {
  /// What the stream contains.
  var descriptor: StreamDescriptor { get }

  /// The next sample, or `nil` at the end of the stream.
  ///
  /// - Throws: an error describing malformed input (with its location where there is one). After a
  ///   throw the stream is finished.
  mutating func next() throws -> MotionSample?
}

/// A description of a stream's content.
public struct StreamDescriptor: Sendable, Equatable {
  /// A short name for messages and listings (`simulator:tour`, a file name, …).
  public var name: String
  /// The sensors the stream has values for.
  public var sensors: SensorSet
  /// The nominal sample rate in Hz, if the stream has one.
  public var nominalSampleRate: Double?
  /// Whether samples carry ``GroundTruth``.
  public var hasGroundTruth: Bool
  /// Free-form facts about the stream (device, units, origin), for listings.
  public var metadata: [String: String]
  /// How the inertial samples were taken (``SampleTiming/sensorOutputs`` unless a reader knows
  /// they are Core Motion's device-motion outputs).
  public var sampleTiming = SampleTiming.sensorOutputs

  public init(
    name: String,
    sensors: SensorSet,
    nominalSampleRate: Double?,
    hasGroundTruth: Bool = false,
    metadata: [String: String] = [:]
  ) {
    self.name = name
    self.sensors = sensors
    self.nominalSampleRate = nominalSampleRate
    self.hasGroundTruth = hasGroundTruth
    self.metadata = metadata
  }
}

/// A stream over samples already in memory.
public struct ArraySampleStream: SampleStream {
  public let descriptor: StreamDescriptor
  private let samples: [MotionSample]
  private var index = 0

  public init(_ samples: [MotionSample], descriptor: StreamDescriptor) {
    self.samples = samples
    self.descriptor = descriptor
  }

  public mutating func next() throws -> MotionSample? {
    guard index < samples.count else { return nil }
    defer { index += 1 }
    return samples[index]
  }
}

extension SampleStream {
  /// Reads every remaining sample into an array (for tests and small recordings).
  public mutating func collect(limit: Int = .max) throws -> [MotionSample] {
    var result: [MotionSample] = []
    while result.count < limit, let sample = try next() {
      result.append(sample)
    }
    return result
  }
}
