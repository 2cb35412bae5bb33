// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import _MotionTestSupport

/// The protocol is language-neutral: a client written in Python from `Protocol/motiond.proto`
/// alone (Tests/Interop/daemon_client.py: the schema compiled with grpcio-tools' protoc, frames
/// read and written with the protobuf package, as docs/Daemon.md shows) talks to a real daemon.
/// Skipped on a developer machine without python3, protobuf or grpcio-tools; with CI=true their
/// absence is a failure (`.ci/install-interop` installs them).
extension DaemonProcessTests {
  @Test func aPythonClientBuiltFromTheSchemaAloneTalksToTheDaemon() throws {
    let probe = try? ChildProcess.run(
      URL(fileURLWithPath: "/usr/bin/env"),
      arguments: ["python3", "-c", "import google.protobuf, grpc_tools.protoc"], timeout: 60)
    guard probe?.status == 0 else {
      let message =
        "the Python client test needs python3 with protobuf and grpcio-tools; run .ci/install-interop"
      if SharedData.isCI { Issue.record(Comment(rawValue: message)) }
      return
    }
    let daemon = try DaemonProcess(source: "simulator:tour")
    let root = SharedData.repositoryRoot
    let run = try ChildProcess.run(
      URL(fileURLWithPath: "/usr/bin/env"),
      arguments: [
        "python3", root.appendingPathComponent("Tests/Interop/daemon_client.py").path,
        daemon.socketPath, root.appendingPathComponent("Protocol/motiond.proto").path,
      ],
      timeout: 120)
    let text = run.standardOutput + run.standardError
    #expect(!run.timedOut, "the Python client did not finish within 2 min:\n\(text)")
    #expect(run.status == 0, "the Python client failed:\n\(text)")
    #expect(text.contains("all checks passed"), "no result from the Python client:\n\(text)")
    #expect(try daemon.terminate() == 0)
  }
}
