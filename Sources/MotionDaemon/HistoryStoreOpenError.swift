// SPDX-License-Identifier: Apache-2.0

/// Why the history store cannot be opened, in words a person can act on (what is at which path),
/// where the system's own error would be a bare code or a Foundation error dump.
struct HistoryStoreOpenError: Error, CustomStringConvertible {
  var description: String
}
