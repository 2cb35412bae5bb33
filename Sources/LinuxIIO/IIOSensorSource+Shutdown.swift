// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

extension IIOSensorSource {
  /// Reader threads running in this process (all sources).
  static let runningReaders = Locked(0)

  /// Waits until every IIO reader thread of the process has stopped its devices (buffers disabled,
  /// triggers and rates restored, descriptors closed) and exited, or `timeout` seconds pass;
  /// returns whether they all did.
  ///
  /// A reader thread stops on its own once its source's last subscription is cancelled, but a
  /// process that exits right after cancelling would leave the device with its buffer enabled (the
  /// next run finds it busy; on a real kernel the sensor stays unusable until reset). A program
  /// calls this after stopping its updates and before it exits, also on SIGINT and SIGTERM.
  @discardableResult
  public static func waitForReadersToStop(timeout: Double = 2) -> Bool {
    let deadline = ProcessInfo.processInfo.systemUptime + timeout
    while runningReaders.withLock({ $0 }) > 0 {
      if ProcessInfo.processInfo.systemUptime >= deadline { return false }
      Thread.sleep(forTimeInterval: 0.002)
    }
    return true
  }
}
