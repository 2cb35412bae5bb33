// SPDX-License-Identifier: Apache-2.0

import OpenCoreMotion
import SourceComposition
import Testing

@Suite struct DaemonSpecificationTests {
  @Test func parsesTheDaemonSourceForms() throws {
    #expect(try SourceSpecification(parsing: "daemon") == .daemon(socketPath: nil))
    #expect(
      try SourceSpecification(parsing: "daemon:/run/user/1000/x.sock")
        == .daemon(socketPath: "/run/user/1000/x.sock"))
    #expect(SourceSpecification.daemon(socketPath: "/a/b.sock").description == "daemon:/a/b.sock")
    #expect(throws: SourceSpecificationError.self) { try SourceSpecification(parsing: "daemon:") }
  }

  @Test func anAbsentDaemonIsAnUnavailableSourceNotACrash() {
    #expect(throws: SourceSpecificationError.self) {
      try SourceFactory.makeSource(
        .daemon(socketPath: "/tmp/no-such-motiond-\(UInt32.random(in: 0...UInt32.max)).sock"))
    }
  }
}
