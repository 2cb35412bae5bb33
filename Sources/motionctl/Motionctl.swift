// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

/// `motionctl`: OpenCoreMotion's command-line tool. Commands are thin: they parse arguments, call
/// the libraries, and print.
@main
struct Motionctl: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "motionctl",
    abstract:
      "Core Motion on Linux: run the demo, replay, record, simulate and evaluate motion data.",
    discussion: """
      Sources are written as COREMOTION_SOURCE takes them (auto, simulator[:SCENARIO], \
      replay:PATH[?speed=N|max], iio, none, daemon[:SOCKET], and a phone streaming its sensors: \
      sensorlogger:PORT, sensorserver:ws://PHONE:PORT, phyphox:http://PHONE:PORT) and chosen with \
      a command's --source option; without it, record, sensors, monitor, dashboard and daemon use \
      COREMOTION_SOURCE, while demo runs the simulator (it ignores COREMOTION_SOURCE).
      """,
    subcommands: [
      DemoCommand.self, ReplayCommand.self, RecordCommand.self, SimulateCommand.self,
      EvaluateCommand.self,
      SensorsCommand.self, MonitorCommand.self, AltitudeCommand.self, StepsCommand.self,
      ActivityCommand.self,
      DashboardCommand.self,
      DaemonCommand.self, StatusCommand.self, PrivacyCommand.self,
    ],
    defaultSubcommand: nil)

  /// ArgumentParser's entry point, after arranging for a failed write of the output to end
  /// with a non-zero status (``StandardOutputCheck``).
  static func main() {
    StandardOutputCheck.install()
    main(nil)
  }
}
