// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDaemonClient
import MotionDaemonProtocol
import Testing

/// Without `XDG_RUNTIME_DIR` the daemon's socket lives in `/tmp/opencoremotion-UID`, a name any
/// user can take first. Apps used to connect to whatever listened there (the socket's presence
/// chose the daemon as their source) and the real daemon failed with a bare "permission denied".
/// Now a client trusts only a peer running as its own user or root (SO_PEERCRED), the daemon
/// accepts only such clients, and a runtime folder owned by someone else is refused by name.
/// (Found by a review of 2026-11-29.) The other user is `nobody` (65534): these checks need root
/// to act as it, and are skipped otherwise.
@Suite struct DaemonPeerTrustTests {
  static let otherUser: UInt32 = 65_534
  static let python = "/usr/bin/python3"
  static let setpriv = "/usr/bin/setpriv"

  static var canActAsAnotherUser: Bool {
    getuid() == 0 && FileManager.default.isExecutableFile(atPath: python)
      && FileManager.default.isExecutableFile(atPath: setpriv)
  }

  @Test func aClientRefusesASocketServedByAnotherUser() throws {
    guard Self.canActAsAnotherUser else {
      print("skipped: needs root, \(Self.setpriv) and \(Self.python) to listen as another user")
      return
    }
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("peer-trust-\(UUID().uuidString)")
    try FileManager.default.createDirectory(
      at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("motiond.sock").path
    // A listener as `nobody` that accepts and then waits, as an impostor would.
    let listener = Process()
    listener.executableURL = URL(fileURLWithPath: Self.setpriv)
    listener.arguments = [
      "--reuid=\(Self.otherUser)", "--regid=\(Self.otherUser)", "--clear-groups", Self.python,
      "-c",
      """
      import os, socket, sys, time
      s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o666)
      s.listen(4); s.settimeout(20)
      c, _ = s.accept(); time.sleep(5)
      """,
      path,
    ]
    // Its own output, not the test's: a child left holding the test's output would keep the
    // test runner waiting.
    listener.standardOutput = FileHandle.nullDevice
    listener.standardError = FileHandle.nullDevice
    try listener.run()
    defer {
      // SIGKILL: a child started from a dispatch thread inherits its blocked signals, SIGTERM
      // among them. (It also ends by itself within 20 s.)
      kill(listener.processIdentifier, SIGKILL)
      listener.waitUntilExit()
    }
    let deadline = Date().addingTimeInterval(10)
    while !FileManager.default.fileExists(atPath: path), Date() < deadline {
      Thread.sleep(forTimeInterval: 0.02)
    }
    #expect(FileManager.default.fileExists(atPath: path), "the listener did not start")
    let client = DaemonClient(socketPath: path)
    #expect {
      try client.connect(timeout: 2)
    } throws: { error in
      "\(error)".contains("runs as user \(Self.otherUser), not as this user")
    }
    client.close()
  }

  @Test func aRuntimeFolderOwnedByAnotherUserIsRefusedByName() throws {
    guard Self.canActAsAnotherUser else {
      print("skipped: needs root to give a folder to another user")
      return
    }
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("peer-trust-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    #expect(chown(folder, Self.otherUser, Self.otherUser) == 0)
    #expect {
      try DaemonPaths.makePrivateDirectory(folder)
    } throws: { error in
      "\(error)".contains("belongs to user \(Self.otherUser)")
    }
    // This user's own folder is fine.
    #expect(chown(folder, getuid(), getgid()) == 0)
    try DaemonPaths.makePrivateDirectory(folder)
  }
}
