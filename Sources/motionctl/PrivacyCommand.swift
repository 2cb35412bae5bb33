// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import MotionDaemonClient

/// `motionctl privacy deny|allow`: the user's choice about motion history.
struct PrivacyCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "privacy",
    abstract: "Allow or deny motion history (deny stops recording and deletes the history).")

  enum Choice: String, ExpressibleByArgument, CaseIterable {
    case allow, deny
  }

  @Argument(help: "allow or deny")
  var choice: Choice

  @Option(help: "The daemon's socket.")
  var socket: String?

  func run() throws {
    let allow = choice == .allow
    try DaemonRequest.run(socket: socket) { try await $0.setHistoryAllowed(allow) }
    print(
      allow
        ? "motion history allowed: the daemon records pedometer and activity history again"
        : "motion history denied: recording stopped and the history deleted; queries now fail with CMErrorMotionActivityNotAuthorized"
    )
  }
}
