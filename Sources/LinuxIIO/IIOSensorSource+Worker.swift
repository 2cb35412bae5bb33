// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension IIOSensorSource {
  /// The reader thread's view of one assignment.
  final class Slot {
    var assignment: IIOAssignment
    var reader: IIODeviceReader?
    /// Boot time of the next attempt to find and start the device again; nil when not waiting.
    var retryAt: Double?
    /// Boot time of the next sysfs poll (polled mode).
    var nextPoll = 0.0
    /// Boot time of the next check that a buffered device is still there (a removed device's
    /// descriptor may simply never wake).
    var nextPresenceCheck = 0.0
    /// Whether a busy spell has been reported already (one message per spell).
    var busyReported = false
    /// Failures that may pass (an I/O error reading a value or the node), counted so that a
    /// device failing on every retry is reported the first time and then at powers of ten.
    var transientFailures = PowerOfTenReports()
    /// The sensors subscribers need now; the slot reads only its channels of these.
    var wantedSensors: SensorSet = []

    /// The assigned channel kinds of the wanted sensors (with the timestamp channel, which
    /// belongs to no sensor); empty when none is wanted.
    var activeKinds: [IIOChannelKind] {
      let isWanted = { (kind: IIOChannelKind) in
        !kind.sensor.isEmpty && !kind.sensor.isDisjoint(with: self.wantedSensors)
      }
      guard assignment.kinds.contains(where: isWanted) else { return [] }
      return assignment.kinds.filter { $0.sensor.isEmpty || isWanted($0) }
    }

    init(_ assignment: IIOAssignment) { self.assignment = assignment }

    var displayName: String { assignment.device.displayName }
  }

  /// The reader thread: one for all devices of the source, alive while anyone subscribes.
  func runWorker() {
    let slots = assignments.map(Slot.init)
    var configuredRate: Double?
    var configuredSensors: SensorSet = []
    var seenSubscriptions: UInt64 = 0
    while true {
      let (desired, wanted, isEmpty, subscriptions) = state.withLock { s in
        (
          s.rates.values.max() ?? 0,
          s.sensors.values.reduce(into: SensorSet()) { $0.formUnion($1) }, s.rates.isEmpty,
          s.subscriptionCount
        )
      }
      if isEmpty {
        stopAll(slots)
        configuredRate = nil
        let exit = state.withLock { s -> Bool in
          guard s.rates.isEmpty else { return false }
          s.isWorkerRunning = false
          return true
        }
        if exit { return }
        continue
      }
      let isNewSubscriber = subscriptions != seenSubscriptions
      seenSubscriptions = subscriptions
      if configuredRate != desired || configuredSensors != wanted {
        stopAll(slots)
        configuredRate = desired
        configuredSensors = wanted
        for slot in slots {
          slot.wantedSensors = wanted
          start(slot, rate: desired)
        }
        state.withLock { s in
          s.activeSensors = slots.reduce(into: SensorSet()) { set, slot in
            for kind in slot.activeKinds { set.formUnion(kind.sensor) }
          }
        }
      } else if isNewSubscriber {
        // A device left off by a failure that is not retried (no reader, no retry time) would
        // say nothing to a subscriber arriving later: start it again, which reports the failure
        // once more, or reads if the cause (a permission) was fixed meanwhile.
        for slot in slots where slot.reader == nil && slot.retryAt == nil {
          start(slot, rate: desired)
        }
      }
      step(slots, rate: desired)
    }
  }

  private func stopAll(_ slots: [Slot]) {
    for slot in slots {
      slot.reader?.stop()
      slot.reader = nil
      slot.retryAt = nil
      slot.busyReported = false
    }
    state.withLock {
      $0.readModes = [:]
      $0.activeSensors = []
    }
  }

  /// Starts `slot`'s reader; failures become events, warnings and retries.
  private func start(_ slot: Slot, rate: Double) {
    // A device with none of the wanted sensors is left off (never opened, buffer disabled).
    let kinds = slot.activeKinds
    guard !kinds.isEmpty else {
      slot.retryAt = nil
      return
    }
    let reader = IIODeviceReader(
      device: slot.assignment.device, kinds: kinds, configuration: configuration, system: system)
    let now = system.bootTime()
    do {
      try reader.start(rate: rate, preference: configuration.mode)
      for warning in reader.warnings { warn("iio: \(warning)") }
      slot.reader = reader
      slot.retryAt = nil
      slot.nextPoll = now + reader.pollInterval
      slot.nextPresenceCheck = now + configuration.recoveryInterval
      state.withLock { $0.readModes[slot.assignment.device.name] = reader.mode }
    } catch {
      for warning in reader.warnings { warn("iio: \(warning)") }
      reader.stop()
      fail(slot, error, now: now)
    }
  }

  /// Reports `error` and decides whether to try again later.
  private func fail(_ slot: Slot, _ error: IIOReaderFailure, now: Double) {
    slot.reader?.stop()
    slot.reader = nil
    state.withLock { _ = $0.readModes.removeValue(forKey: slot.assignment.device.name) }
    switch error {
    case .busy(let message):
      if !slot.busyReported {
        slot.busyReported = true
        // Advisory: the device is retried below, and reading resumes once it is free.
        deliver([.failure(SourceFailure(.busy, "iio: \(message); retrying", isFatal: false))])
      }
      slot.retryAt = now + configuration.recoveryInterval
    case .permissionDenied(let path):
      // Permissions do not change by waiting; the user has to install the rule.
      deliver([.failure(IIOError.permissionDenied(path: path).sourceFailure)])
    case .disconnected(let message):
      // Advisory: the device is looked for again below, and reading resumes when it reappears; a
      // fatal failure would end a session (motionctl) that would have gone on.
      deliver([
        .failure(
          SourceFailure(
            .disconnected, "iio: \(message); waiting for \(slot.displayName) to come back",
            isFatal: false))
      ])
      slot.retryAt = now + configuration.recoveryInterval
    case .transient(let message):
      // Advisory: one failed read does not end the device; it is started again below.
      if let total = slot.transientFailures.count() {
        let count = total == 1 ? "" : " (\(total) such failures so far)"
        deliver([
          .failure(SourceFailure(.other, "iio: \(message); retrying\(count)", isFatal: false))
        ])
      }
      slot.retryAt = now + configuration.recoveryInterval
    case .other(let message):
      // What a retry would not change (no buffer, an unusable scan layout): fatal, not retried.
      deliver([.failure(SourceFailure(.other, "iio: \(message)"))])
    }
  }

  /// Finds the device again by name and label (its index may have changed) and restarts it.
  private func retry(_ slot: Slot, rate: Double) {
    let device = slot.assignment.device
    let discovery = IIODiscovery(sysfsRoot: sysfsRoot, devRoot: devRoot, system: system)
    guard
      let found = discovery.devices(named: device.name, label: device.label).first(where: {
        candidate in
        slot.assignment.kinds.allSatisfy { !candidate.channels(of: $0).isEmpty }
      })
    else {
      slot.retryAt = system.bootTime() + configuration.recoveryInterval
      return
    }
    let wasBusy = slot.busyReported
    slot.assignment.device = found
    start(slot, rate: rate)
    if slot.reader != nil {
      slot.busyReported = false
      warn(
        "iio: \(found.displayName) is \(wasBusy ? "free again" : "back") (\(found.directoryName))")
    }
  }

  /// One wait-and-read round.
  private func step(_ slots: [Slot], rate: Double) {
    guard let wakePipe else {
      // Without a wake pipe (never seen on Linux) fall back to short sleeps.
      Thread.sleep(forTimeInterval: 0.005)
      return readRound(slots, revents: [:], rate: rate)
    }
    var descriptors = [wakePipe.read]
    var owners: [Int32: Slot] = [:]
    var deadline = Double.infinity
    for slot in slots {
      if let retryAt = slot.retryAt { deadline = Swift.min(deadline, retryAt) }
      guard let reader = slot.reader else { continue }
      if reader.mode == .buffered, reader.fd >= 0 {
        descriptors.append(reader.fd)
        owners[reader.fd] = slot
        deadline = Swift.min(deadline, slot.nextPresenceCheck)
      } else if reader.mode == .polled {
        deadline = Swift.min(deadline, slot.nextPoll)
      }
    }
    let now = system.bootTime()
    let timeout =
      deadline.isFinite
      ? Int32(Swift.min(Swift.max(0, (deadline - now) * 1000).rounded(.up), 1000)) : 1000
    let revents = system.waitForInput(descriptors, timeoutMilliseconds: timeout)
    if revents.first.map({ $0 != 0 }) == true { system.drain(wakePipe.read) }
    var bySlot: [ObjectIdentifier: Int16] = [:]
    for (index, fd) in descriptors.enumerated().dropFirst() where revents[index] != 0 {
      if let slot = owners[fd] { bySlot[ObjectIdentifier(slot)] = revents[index] }
    }
    readRound(slots, revents: bySlot, rate: rate)
  }

  private func readRound(_ slots: [Slot], revents: [ObjectIdentifier: Int16], rate: Double) {
    var samples: [MotionSample] = []
    let now = system.bootTime()
    for slot in slots {
      if let retryAt = slot.retryAt, slot.reader == nil {
        if now >= retryAt { retry(slot, rate: rate) }
        continue
      }
      guard let reader = slot.reader else { continue }
      switch reader.mode {
      case .buffered:
        if let events = revents[ObjectIdentifier(slot)] {
          readBuffered(slot, reader, events: events, now: now, into: &samples)
        } else if now >= slot.nextPresenceCheck {
          slot.nextPresenceCheck = now + configuration.recoveryInterval
          if !isPresent(slot.assignment.device) {
            fail(slot, .disconnected("\(slot.displayName) is gone"), now: now)
          }
        }
      case .polled:
        guard now >= slot.nextPoll else { continue }
        slot.nextPoll += reader.pollInterval
        if slot.nextPoll < now { slot.nextPoll = now + reader.pollInterval }
        do {
          samples.append(try reader.poll())
          slot.busyReported = false
        } catch {
          if case .busy(let message) = error {
            // A buffer enabled by someone else blocks `_raw` reads; keep trying at the poll rate.
            if !slot.busyReported {
              slot.busyReported = true
              deliver([
                .failure(SourceFailure(.busy, "iio: \(message); retrying", isFatal: false))
              ])
            }
          } else {
            fail(slot, error, now: now)
          }
        }
      }
    }
    if samples.count > 1 { samples.sort { $0.timestamp < $1.timestamp } }
    deliver(samples.map { .sample($0) })
  }

  private func readBuffered(
    _ slot: Slot, _ reader: IIODeviceReader, events: Int16, now: Double,
    into samples: inout [MotionSample]
  ) {
    switch reader.readBuffered() {
    case .samples(let batch, let endOfFile):
      samples.append(contentsOf: batch)
      if let notice = reader.unmeasurableNotice() {
        deliver([.failure(SourceFailure(.other, "iio: \(notice)", isFatal: false))])
      }
      let hangUp = events & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
      guard endOfFile || (hangUp && batch.isEmpty) else { return }
      // A character device that ends is not an IIO buffer (the kernel's gives EAGAIN when empty):
      // `/dev/null` ended at every read, was opened again and kept a core busy saying nothing.
      if endOfFile, !system.isFIFO(reader.fd) {
        let node = slot.assignment.device.devicePath
        fail(
          slot,
          .other(
            "\(slot.displayName): \(node) reached its end, which the buffer of an IIO device "
              + "never does"), now: now)
        return
      }
      // The kernel's node never ends; a FIFO stand-in does when its writer leaves. Either way,
      // carry on if the device is still there, else report it gone.
      if isPresent(slot.assignment.device), reader.reopen() { return }
      fail(slot, .disconnected("\(slot.displayName) is gone"), now: now)
    case .failed(let error):
      fail(slot, error, now: now)
    }
  }

  /// Whether the device's sysfs directory still exists with the same name.
  private func isPresent(_ device: IIODeviceInfo) -> Bool {
    guard case .success(let name) = system.readAttribute("\(device.sysfsPath)/name") else {
      return false
    }
    return name.trimmingCharacters(in: .whitespacesAndNewlines) == device.name
  }
}
