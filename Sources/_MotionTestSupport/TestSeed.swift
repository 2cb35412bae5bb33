// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The seed for a randomised test: `MOTION_TEST_SEED` from the environment when set (to replay a
/// failure), otherwise a fixed value derived from the test's name, so runs are reproducible.
package func testSeed(for name: String = #function) -> UInt64 {
  if let text = ProcessInfo.processInfo.environment["MOTION_TEST_SEED"], let seed = UInt64(text) {
    return seed
  }
  // FNV-1a over the name: stable across runs and platforms (unlike `Hashable`).
  var hash: UInt64 = 0xcbf2_9ce4_8422_2325
  for byte in name.utf8 {
    hash ^= UInt64(byte)
    hash &*= 0x100_0000_01b3
  }
  return hash
}
