// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

/// The one place where OpenCoreMotion reaches the concrete source implementations of other modules
/// (simulator, recording readers, IIO hardware). ``SourceFactory`` calls only these.
enum DefaultSourceFactory {
  /// The simulator's stream for `scenario` (`nil` = its default scenario).
  static func simulatorStream(scenario: String?) throws -> any SampleStream {
    throw SourceSpecificationError(
      text: "simulator" + (scenario.map { ":" + $0 } ?? ""),
      problem: "the simulator is not part of this build yet")
  }

  /// A reader over the recording at `url` (format detected from its header).
  static func recordingStream(url: URL) throws -> any SampleStream {
    try RecordingReader.open(url)
  }

  /// The motion sensors the IIO backend finds (only `device` when given), or `nil` when there are
  /// none.
  static func discoverHardware(device: String?) throws -> (any SensorSource)? {
    nil
  }
}
