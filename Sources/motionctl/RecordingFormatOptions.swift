// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

/// The rule every command that reads recordings applies to `--format` and `--columns`: a column
/// mapping reads the file as the `columns` format, so any other format named beside it would be
/// ignored (one of the two, without a word).
enum RecordingFormatOptions {
  static func validate(format: String?, columns: String?) throws {
    if columns != nil, let format, format != "columns" {
      throw ValidationError(
        "--columns reads the file through its column mapping (--format columns); it cannot be "
          + "combined with --format \(format)")
    }
  }
}
