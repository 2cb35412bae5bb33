// SPDX-License-Identifier: Apache-2.0

/// An error whose message is shown to the user as is (ArgumentParser prints it and exits non-zero).
struct CLIError: Error, CustomStringConvertible {
  let description: String

  init(_ message: String) {
    description = message
  }
}
