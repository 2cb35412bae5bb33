// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest
import _MotionTestSupport

/// The Foxglove endpoint against a client someone else wrote: `foxglove2zmq`'s relay from PyPI
/// (Tests/Interop/foxglove_client.py), which negotiates the protocol, subscribes to every
/// channel and decodes the binary Message Data frames with its own code. Skipped on a developer
/// machine without it; with CI=true its absence is a failure (`.ci/install-interop` installs it).
final class DashboardFoxgloveInteropTests: XCTestCase {
  func testAThirdPartyFoxgloveClientReadsEveryChannel() throws {
    let probe = try? ChildProcess.run(
      URL(fileURLWithPath: "/usr/bin/env"),
      arguments: ["python3", "-c", "import foxglove2zmq, websockets, zmq"], timeout: 60)
    guard probe?.status == 0 else {
      let message =
        "the Foxglove interop test needs python3 with foxglove2zmq; run .ci/install-interop"
      if SharedData.isCI { XCTFail(message) }
      throw XCTSkip(message)
    }
    try DashboardBrowserTests.runPythonCheck(
      "Tests/Interop/foxglove_client.py", what: "the Foxglove client's checks", timeout: 240,
      result: "all checks passed")
  }
}
