// SPDX-License-Identifier: Apache-2.0

import MotionSensors

/// An error whose message is shown to the user as is (ArgumentParser prints it and exits non-zero).
struct CLIError: Error, CustomStringConvertible {
  let description: String

  init(_ message: String) {
    description = message
  }
}

/// `error`, with a pointer to `--skip-invalid` when it is about a row that option would skip (a
/// NaN, a timestamp going back, a row of the wrong length: Sensor Logger's own README tells its
/// users to expect rows out of order).
func pointingToSkipInvalid(_ error: any Error) -> any Error {
  guard let recordingError = error as? RecordingError, recordingError.wouldBeSkipped else {
    return error
  }
  return CLIError("\(recordingError) (--skip-invalid skips and counts such rows)")
}
