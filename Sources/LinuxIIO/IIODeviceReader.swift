// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

/// How a device is being read.
public enum IIOReadMode: String, Sendable, Equatable {
  /// Records streamed from `/dev/iio:deviceN` (needs write access to the buffer attributes).
  case buffered
  /// Values read from the `*_raw` / `*_input` sysfs attributes on a timer (works unprivileged).
  case polled
}

/// Why a reader could not start or stopped.
enum IIOReaderFailure: Error, Equatable {
  /// Another reader holds the device (EBUSY on open or on enabling the buffer).
  case busy(String)
  /// Access refused; the message names the path.
  case permissionDenied(path: String)
  /// The device went away.
  case disconnected(String)
  /// A read or open that failed this time but may well work the next (an I/O error from the bus,
  /// a value caught half-written); the device is tried again later.
  case transient(String)
  /// Anything else, for people: what trying again does not change (no buffer, an unusable scan
  /// layout).
  case other(String)
}

/// Reads one IIO device, buffered or polled, for the kinds assigned to it. Not thread-safe: the
/// source's reader thread owns it.
final class IIODeviceReader {
  let device: IIODeviceInfo
  let kinds: [IIOChannelKind]
  let converter: IIOConverter
  private let system: IIOSystem

  private(set) var mode: IIOReadMode = .polled
  /// The rate in Hz the device was set to (or reports), when known.
  private(set) var deviceRate: Double?
  /// Seconds between sysfs polls in polled mode: one over the rate, at most
  /// ``maximumPollRate``.
  private(set) var pollInterval = 0.01

  /// The most sysfs polls per second, Hz. A poll reads every channel's attribute, and the rate
  /// comes from sysfs (`sampling_frequency_available`): an absurd one (`1e308`) made the poll
  /// interval 1e-308 s, and the reader polled without pause, handing every subscriber some 19 000
  /// samples a second. 1 kHz is above the fastest rate Core Motion delivers
  /// (`CMBatchedSensorManager`'s 800 Hz); a faster device is read through its buffer.
  static let maximumPollRate = 1000.0
  /// The buffer descriptor in buffered mode.
  private(set) var fd: Int32 = -1
  private(set) var layout: IIOScanLayout?
  /// The clock of buffer timestamps after setup.
  private(set) var timestampClock = "boottime"
  /// Notes for the source's warnings (fallbacks, unwritable attributes).
  private(set) var warnings: [String] = []

  /// Decoding plan: per enabled element read for a slot, its offset and format.
  private var plan: [(offset: Int, type: IIOScanType, slot: Int)] = []
  private var timestampElement: IIOScanLayout.Element?
  /// The buffer's clock is one this reader cannot read, so its timestamp channel cannot be put on
  /// the boot clock: records are stamped on arrival instead, as without a timestamp channel.
  private var stampsOnArrival = false
  private var pending: [UInt8] = []
  /// Buffer records left out because a value was beyond measurement once scaled (a reading of
  /// 30 000 g; infinite: an absurd `_offset` times the scale), and when that count is due a notice.
  private(set) var unmeasurableRecords = 0
  private var unmeasurableReports = PowerOfTenReports()
  private var readBuffer: [UInt8] = []
  /// Buffer attribute values to write back when the buffer stops, in order.
  private var restore: [(path: String, value: String)] = []
  /// Sampling frequencies to write back at ``stop()`` (after the buffer's): the rates this reader
  /// changed, with the text they held before.
  private var rateRestore: [(path: String, value: String)] = []
  /// Seconds between records, for stamping records of a device without a timestamp channel:
  /// 1 / the device's rate (or the requested one when the device does not say).
  private(set) var recordPeriod = 0.01
  /// The last timestamp given to a record without a timestamp channel (they never go back).
  private var lastSpreadTimestamp = -Double.infinity
  private var bufferEnabled = false

  init(
    device: IIODeviceInfo, kinds: [IIOChannelKind], configuration: IIOConfiguration,
    system: IIOSystem
  ) {
    self.device = device
    self.kinds = kinds
    self.converter = IIOConverter(device: device, kinds: kinds, configuration: configuration)
    self.system = system
  }

  deinit { stop() }

  // MARK: Start / stop

  /// Configures the rate and starts reading, buffered when `preference` allows and the device
  /// supports it, else polled. Busy devices and missing permissions fall back to polling in
  /// automatic mode, with a warning; in buffered mode they throw.
  func start(rate: Double, preference: IIOConfiguration.Mode) throws(IIOReaderFailure) {
    warnings = []
    guard system.exists(device.sysfsPath) else {
      throw .disconnected("\(device.displayName) is gone (\(device.sysfsPath))")
    }
    // A buffer another reader (iio-sensor-proxy) has enabled streams at the rate it chose: ours
    // is not written, or every retry would change what that reader gets. Buffered-only mode
    // touches nothing else either; automatic mode polls at the device's rate (below).
    let heldByAnother = preference != .polled && isBufferEnabled()
    if heldByAnother, preference == .buffered {
      throw .busy("\(device.displayName) is busy (its buffer is already enabled by another reader)")
    }
    configureRate(rate, writing: !heldByAnother)
    let effective = Swift.min(rate, deviceRate ?? rate)
    pollInterval = 1 / Swift.min(Swift.max(effective, 0.1), Self.maximumPollRate)
    let recordRate = deviceRate ?? rate
    recordPeriod = recordRate.isNaN ? 0.01 : 1 / Swift.min(Swift.max(recordRate, 0.1), 1_000_000)

    if preference != .polled {
      if !device.supportsBuffer {
        if preference == .buffered {
          throw .other("\(device.displayName) has no buffer (sysfs polling only)")
        }
      } else {
        do {
          try startBuffer(rate: effective)
          mode = .buffered
          return
        } catch {
          stopBuffer()
          switch error {
          case .busy(let message):
            if preference == .buffered { throw error }
            warnings.append("\(message); polling sysfs instead")
          case .permissionDenied(let path):
            if preference == .buffered { throw error }
            warnings.append(
              "\(device.displayName): no write access for buffered reading (\(path)); polling "
                + "sysfs instead. For full-rate streaming \(IIOError.udevRuleHint)")
          case .disconnected, .transient, .other:
            throw error
          }
        }
      }
    }
    mode = .polled
    // One read up front surfaces a refusal now rather than at the first timer tick.
    _ = try poll()
  }

  /// Stops reading and undoes the settings this reader made: the buffer's (disable first, then
  /// trigger, length, watermark and scan elements, as the kernel wants), then the sampling
  /// frequencies it changed. Harmless when already stopped or when the device is gone.
  func stop() {
    stopBuffer()
    for (path, value) in rateRestore.reversed() { _ = system.writeAttribute(path, value) }
    rateRestore = []
  }

  private func stopBuffer() {
    if fd >= 0 {
      system.closeDevice(fd)
      fd = -1
    }
    if bufferEnabled, let bufferDirectory = device.bufferDirectory {
      _ = system.writeAttribute("\(bufferDirectory)/enable", "0")
      bufferEnabled = false
    }
    for (path, value) in restore.reversed() { _ = system.writeAttribute(path, value) }
    restore = []
    layout = nil
    plan = []
    timestampElement = nil
    stampsOnArrival = false
    pending = []
  }

  /// Whether the device's buffer is enabled now; at start, by someone else.
  private func isBufferEnabled() -> Bool {
    guard device.supportsBuffer, let bufferDirectory = device.bufferDirectory,
      let enabled = readNumber("\(bufferDirectory)/enable")
    else { return false }
    return enabled != 0
  }

  /// Picks and writes the sampling frequency for every control governing the assigned kinds;
  /// only reads the current one when not `writing`.
  private func configureRate(_ rate: Double, writing: Bool) {
    var chosen: [Double] = []
    var seen: Set<String> = []
    for kind in kinds {
      guard let control = device.samplingControl(for: kind), !seen.contains(control.attribute)
      else { continue }
      seen.insert(control.attribute)
      let path = "\(device.sysfsPath)/\(control.attribute)"
      let current = readNumber(path) ?? control.current
      // A list offering no usable rate (`[0 0 0]`) chooses none; without a list, the requested one.
      let offered = control.available.map { $0.bestRate(for: rate) }
      guard let target = offered ?? (current == nil ? nil : rate), target > 0 else {
        // Never 0 Hz (a driver then produces nothing): the device keeps the rate it has.
        if let current, current > 0 { chosen.append(current) }
        continue
      }
      if let current, abs(current - target) < 1e-6 || !writing {
        if current > 0 { chosen.append(current) }
        continue
      }
      guard writing else { continue }
      let previous = readText(path)
      switch system.writeAttribute(path, IIOFormat.number(target)) {
      case .success:
        // Written back at stop (what `waitForReadersToStop` promises: rates restored).
        if let previous, !previous.isEmpty { rateRestore.append((path, previous)) }
        chosen.append(readNumber(path) ?? target)
      case .failure(let error):
        if let current, current > 0 { chosen.append(current) }
        warnings.append(
          "\(device.displayName): could not set \(control.attribute) to "
            + "\(IIOFormat.number(target)) Hz (\(error.phrase)); it stays at "
            + "\(current.map { IIOFormat.number($0) } ?? "?") Hz")
      }
    }
    deviceRate = chosen.filter { $0 > 0 }.min()
  }

  private func readNumber(_ path: String) -> Double? {
    guard case .success(let text) = system.readAttribute(path) else { return nil }
    // "nan" and "inf" parse as Doubles; an attribute holding them has no usable value.
    return Double(text.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap {
      $0.isFinite ? $0 : nil
    }
  }

  private func write(_ path: String, _ value: String) throws(IIOReaderFailure) {
    switch system.writeAttribute(path, value) {
    case .success: return
    case .failure(.busy):
      throw .busy(
        "\(device.displayName) is busy (another reader, e.g. iio-sensor-proxy, holds it: "
          + "EBUSY on \(path))")
    case .failure(.permissionDenied): throw .permissionDenied(path: path)
    case .failure(.gone): throw .disconnected("\(device.displayName) is gone (\(path))")
    case .failure(let error):
      throw .other("\(device.displayName): writing \(path): \(error.phrase)")
    }
  }

  /// The buffer set-up sequence: timestamp clock, scan elements, trigger, length and watermark,
  /// enable, open.
  private func startBuffer(rate: Double) throws(IIOReaderFailure) {
    guard let scanDirectory = device.scanElementsDirectory,
      let bufferDirectory = device.bufferDirectory
    else { throw .other("\(device.displayName) has no buffer") }
    let enablePath = "\(bufferDirectory)/enable"
    if let enabled = readNumber(enablePath), enabled != 0 {
      throw .busy("\(device.displayName) is busy (its buffer is already enabled by another reader)")
    }

    // Timestamps in CLOCK_BOOTTIME need no conversion; the write needs root and may be refused.
    let clockPath = "\(device.sysfsPath)/current_timestamp_clock"
    if device.timestampClock != nil {
      if let clock = readText(clockPath), clock != "boottime" {
        _ = system.writeAttribute(clockPath, "boottime")
      }
      timestampClock = readText(clockPath) ?? "realtime"
      stampsOnArrival = system.clockTime(named: timestampClock) == nil
      if stampsOnArrival {
        warnings.append(
          "\(device.displayName): timestamp clock \"\(timestampClock)\" is not one this reader "
            + "can convert to the boot clock; its samples are stamped when they arrive")
      }
    } else {
      stampsOnArrival = false
      timestampClock = "realtime"  // Kernels before 4.5 stamp with the wall clock.
    }

    // Scan elements: enable the assigned channels and the timestamp, disable the rest.
    let wanted = Set(converter.channels.map(\.channel.name) + ["in_timestamp"])
    guard case .success(let files) = system.listDirectory(scanDirectory) else {
      throw .disconnected("\(device.displayName) is gone (\(scanDirectory))")
    }
    let elementNames = files.filter { $0.hasSuffix("_en") }.map { String($0.dropLast(3)) }
    for element in elementNames {
      let path = "\(scanDirectory)/\(element)_en"
      let previous = readText(path) ?? "0"
      let value = wanted.contains(element) ? "1" : "0"
      if previous != value {
        try write(path, value)
        restore.append((path, previous))
      }
    }

    // Trigger: keep one already attached (inv_mpu6050 attaches its own), else attach the device's
    // data-ready trigger by the kernel's naming conventions. Hardware-FIFO drivers need none.
    let triggerPath = "\(device.sysfsPath)/trigger/current_trigger"
    if system.exists(triggerPath), IIODiscovery.triggerName(readText(triggerPath)) == nil {
      let discovery = IIODiscovery(
        sysfsRoot: (device.sysfsPath as NSString).deletingLastPathComponent, devRoot: "",
        system: system)
      let names = discovery.triggerNames()
      let candidates = ["\(device.name)-dev\(device.index ?? -1)", "\(device.name)-trigger"]
      if let trigger = candidates.first(where: names.contains) {
        try write(triggerPath, trigger)
        restore.append((triggerPath, "NULL"))
      }
    }

    // Length and watermark: wake about every 10 ms (one record per wake-up up to 100 Hz) and keep a
    // second of headroom so a late reader loses nothing.
    // The rate comes from sysfs (`sampling_frequency`, `sampling_frequency_available`): clamp it to
    // 1 Hz…1 MHz in floating point before sizing anything from it (NaN sizes for 1 Hz).
    let sizingRate = rate.isNaN ? 1 : Swift.min(Swift.max(rate, 1), 1_000_000)
    let watermark = Swift.max(1, Int(sizingRate / 100))
    let length = Swift.max(128, Int(sizingRate.rounded(.up)), 4 * watermark)
    // Both are written back when the buffer stops (after it is disabled, as the kernel requires).
    for (path, value) in [
      ("\(bufferDirectory)/length", length), ("\(bufferDirectory)/watermark", watermark),
    ] where system.exists(path) {
      let previous = readText(path)
      try write(path, String(value))
      if let previous, !previous.isEmpty, previous != String(value) {
        restore.append((path, previous))
      }
    }

    try write(enablePath, "1")
    bufferEnabled = true

    switch system.openDevice(device.devicePath) {
    case .success(let descriptor): fd = descriptor
    case .failure(.busy):
      throw .busy(
        "\(device.displayName) is busy (EBUSY opening \(device.devicePath): another "
          + "reader, e.g. iio-sensor-proxy, has it open)")
    case .failure(.permissionDenied): throw .permissionDenied(path: device.devicePath)
    case .failure(.gone): throw .disconnected("\(device.devicePath) is gone")
    case .failure(let error) where error.isLasting:
      // Not a node a retry would change (a regular file, a folder).
      throw .other("\(device.displayName): opening \(device.devicePath): \(error.phrase)")
    case .failure(let error):
      throw .transient("opening \(device.devicePath): \(error.phrase)")
    }

    // The record layout from what is enabled now (read back, in case a write did not take).
    var elements: [IIOScanLayout.Element] = []
    for element in elementNames where readNumber("\(scanDirectory)/\(element)_en") ?? 0 != 0 {
      guard let indexText = readText("\(scanDirectory)/\(element)_index"),
        let index = Int(indexText)
      else { throw .other("\(device.displayName): unreadable scan element \(element)") }
      let typePath = "\(scanDirectory)/\(element)_type"
      guard let typeText = readText(typePath) else {
        throw .other("\(device.displayName): unreadable scan element \(element) (\(typePath))")
      }
      guard let type = IIOScanType(parsing: typeText) else {
        // Quoted short and escaped: the text comes from sysfs and may be anything.
        let quoted = String(typeText.prefix(64)).debugDescription
        throw .other(
          "\(device.displayName): unusable \(typePath) \(quoted) (expected "
            + "[be|le]:[s|u]bits/storagebits[Xrepeat]>>shift, a repeat of at most "
            + "\(IIOScanType.maximumRepeatCount))")
      }
      // The kernel numbers the elements uniquely; two at one index leave the record's order
      // unknown, and it was guessed from their names, which can swap axes without a word.
      if let other = elements.first(where: { $0.index == index }) {
        throw .other(
          "\(device.displayName): \(other.name)_index and \(element)_index are both \(index), "
            + "so the order of a buffer record is unknown")
      }
      elements.append(IIOScanLayout.Element(name: element, index: index, type: type))
    }
    try configureLayout(IIOScanLayout(elements))
  }

  /// The largest record accepted, in bytes. The read buffer holds 64 records, and the layout comes
  /// from sysfs text: without a bound a tree of many repeated 64-bit elements would size it in
  /// gigabytes. Real records are tens of bytes (an IMU with a timestamp: 16–24), so 4 KiB is far
  /// above any device.
  static let maximumRecordSize = 4096

  /// Prepares decoding for `layout` (also used directly by tests and the benchmark).
  func configureLayout(_ layout: IIOScanLayout) throws(IIOReaderFailure) {
    guard layout.recordSize > 0 else { throw .other("\(device.displayName): empty scan") }
    guard layout.recordSize <= Self.maximumRecordSize else {
      let largest = layout.elements.max { $0.type.byteCount < $1.type.byteCount }
      let culprit = largest.map {
        " (the largest enabled element, \(device.scanElementsDirectory ?? "scan_elements")/"
          + "\($0.name)_type, is \($0.type))"
      }
      throw .other(
        "\(device.displayName): records of \(layout.recordSize) bytes are more than the "
          + "\(Self.maximumRecordSize) this reader accepts\(culprit ?? "")")
    }
    self.layout = layout
    plan = converter.channels.compactMap { entry in
      layout.element(named: entry.channel.name).map { ($0.offset, $0.type, entry.slot) }
    }
    guard plan.count == converter.channels.count else {
      throw .other("\(device.displayName): the buffer did not enable every channel")
    }
    timestampElement = stampsOnArrival ? nil : layout.element(named: "in_timestamp")
    readBuffer = [UInt8](repeating: 0, count: layout.recordSize * 64)
  }

  private func readText(_ path: String) -> String? {
    guard case .success(let text) = system.readAttribute(path) else { return nil }
    return text.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  // MARK: Reading

  /// What a buffered read found.
  enum BufferedOutcome {
    /// Samples (possibly none) and whether the descriptor reported end of file (a FIFO whose
    /// writer left; the kernel's device never does).
    case samples([MotionSample], endOfFile: Bool)
    /// The device went away or the read failed.
    case failed(IIOReaderFailure)
  }

  /// The most full reads (64 records each) one ``readBuffered()`` makes. A descriptor that never
  /// runs dry (a device faster than the reader, or a node that is really `/dev/zero`) kept it
  /// reading for ever: the samples piled up undelivered and the reader thread could not be
  /// stopped. After this many the round ends and delivers; the next one reads on at once, as the
  /// descriptor is still readable.
  static let maximumReadsPerRound = 16

  /// Reads the complete records available without blocking, at most ``maximumReadsPerRound``
  /// buffers full.
  func readBuffered() -> BufferedOutcome {
    guard fd >= 0, let layout else { return .failed(.other("not streaming")) }
    var samples: [MotionSample] = []
    var endOfFile = false
    let recordSize = layout.recordSize
    let clockOffset = clockOffsetToBoot()
    reads: for _ in 0..<Self.maximumReadsPerRound {
      let result = readBuffer.withUnsafeMutableBytes { raw in
        system.readDevice(fd, into: raw.baseAddress!, count: raw.count)
      }
      switch result {
      case .success(0):
        endOfFile = true
        break reads
      case .success(let count):
        pending.append(contentsOf: readBuffer[0..<count])
        decodeRecords(recordSize: recordSize, clockOffset: clockOffset, into: &samples)
        // A short read emptied the descriptor; a full one may have left more.
        if count < readBuffer.count { break reads }
      case .failure(.wouldBlock):
        break reads
      case .failure(.gone):
        return .failed(
          .disconnected("\(device.displayName) is gone (read from \(device.devicePath))"))
      case .failure(let error):
        return .failed(
          .transient("\(device.displayName): reading \(device.devicePath): \(error.phrase)"))
      }
    }
    return .samples(samples, endOfFile: endOfFile)
  }

  /// A message saying how many records were left out as beyond measurement, when that count is
  /// due one (the first, then at powers of ten); nil otherwise.
  func unmeasurableNotice() -> String? {
    guard unmeasurableReports.isDue(total: unmeasurableRecords) else { return nil }
    let records =
      unmeasurableRecords == 1 ? "a buffer record" : "\(unmeasurableRecords) buffer records"
    return "\(device.displayName): left out \(records) with a value beyond what its sensor can "
      + "measure once scaled (check the _scale and _offset attributes)"
  }

  /// Re-opens the buffer descriptor (after a FIFO writer left); false when the node is gone.
  func reopen() -> Bool {
    if fd >= 0 { system.closeDevice(fd) }
    fd = -1
    pending = []
    guard case .success(let descriptor) = system.openDevice(device.devicePath) else { return false }
    fd = descriptor
    return true
  }

  /// Seconds to add to a timestamp on the buffer's clock to get seconds since boot.
  private func clockOffsetToBoot() -> Double {
    guard timestampClock != "boottime", let clock = system.clockTime(named: timestampClock),
      let boot = system.clockTime(named: "boottime")
    else { return 0 }
    return boot - clock
  }

  /// Decodes the complete records in `pending` (the remainder waits for the next read).
  ///
  /// Without a timestamp channel the records of one read are stamped back from their arrival time
  /// (``BootClock``) at ``recordPeriod``: the last one arrives now, each earlier one a period
  /// before the next. Stamps never reach back to the previous read's last one: when they would
  /// (a backlog larger than the time since that read), the read's records share the interval since
  /// it evenly. So they strictly increase.
  func decodeRecords(recordSize: Int, clockOffset: Double, into samples: inout [MotionSample]) {
    let complete = pending.count / recordSize * recordSize
    guard complete > 0 else { return }
    var values = [Double](repeating: 0, count: IIOConverter.slotCount)
    let arrival = timestampElement == nil ? system.bootTime() : 0
    var spreadStep = recordPeriod
    var spreadStart = arrival - Double(complete / recordSize - 1) * recordPeriod
    if timestampElement == nil, spreadStart <= lastSpreadTimestamp {
      let count = Double(complete / recordSize)
      // Share the time since the last stamp (a microsecond apart if the clock did not move).
      spreadStep = Swift.max((arrival - lastSpreadTimestamp) / count, 1e-6)
      spreadStart = lastSpreadTimestamp + spreadStep
    }
    var recordIndex = 0
    pending.withUnsafeBytes { bytes in
      values.withUnsafeMutableBufferPointer { slots in
        var base = 0
        while base < complete {
          let record = UnsafeRawBufferPointer(rebasing: bytes[base..<(base + recordSize)])
          for entry in plan {
            slots[entry.slot] = Double(entry.type.decode(record, at: entry.offset))
          }
          let timestamp: Double
          if let element = timestampElement {
            timestamp = Double(element.type.decode(record, at: element.offset)) / 1e9 + clockOffset
          } else {
            timestamp = spreadStart + Double(recordIndex) * spreadStep
            lastSpreadTimestamp = timestamp
          }
          recordIndex += 1
          let sample = converter.sample(raw: UnsafeBufferPointer(slots), timestamp: timestamp)
          // Delivered, an infinite sample was dropped by the consumers (a monitor printed
          // nothing) or stopped them (record), and a finite absurd one (30 000 g) was taken for a
          // measurement; it is left out and counted.
          if IIOConverter.isMeasurement(sample) {
            samples.append(sample)
          } else {
            unmeasurableRecords += 1
          }
          base += recordSize
        }
      }
    }
    pending.removeFirst(complete)
  }

  /// Reads the sysfs value attributes once (polled mode); timestamps are ``BootClock`` readings.
  func poll() throws(IIOReaderFailure) -> MotionSample {
    var values = [Double](repeating: 0, count: IIOConverter.slotCount)
    for (channel, slot) in converter.channels {
      guard let attribute = channel.valueAttribute else { continue }
      let path = "\(device.sysfsPath)/\(attribute)"
      switch system.readAttribute(path) {
      case .success(let text):
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let value = Double(trimmed), value.isFinite else {
          throw .transient(
            "\(device.displayName): unparsable \(attribute) \(IIOFormat.quoted(trimmed))")
        }
        values[slot] = value
      case .failure(.busy):
        throw .busy(
          "\(device.displayName) is busy (EBUSY reading \(attribute): another reader "
            + "has its buffer enabled)")
      case .failure(.permissionDenied): throw .permissionDenied(path: path)
      case .failure(.gone): throw .disconnected("\(device.displayName) is gone (\(path))")
      case .failure(let error) where error.isLasting:
        throw .other("\(device.displayName): reading \(path): \(error.phrase)")
      case .failure(let error):
        throw .transient("\(device.displayName): reading \(path): \(error.phrase)")
      }
    }
    let timestamp = system.bootTime()
    let sample = values.withUnsafeBufferPointer {
      converter.sample(raw: $0, timestamp: timestamp)
    }
    // Each value is finite, but an absurd one (1e308) times the scale may not be, and a finite
    // one may still be no measurement (1e300, or 30 000 g): an infinite sample was delivered and
    // consumers dropped it (a monitor printed nothing) or stopped on it (record).
    guard IIOConverter.isMeasurement(sample) else {
      throw .transient(
        "\(device.displayName): the values read (\(readings(values))) once scaled are beyond "
          + "what the sensor can measure")
    }
    return sample
  }

  /// The raw readings of the converter's channels, for messages: `in_accel_x_raw=1e+308, …`.
  private func readings(_ values: [Double]) -> String {
    converter.channels.compactMap { channel, slot in
      channel.valueAttribute.map { "\($0)=\(values[slot])" }
    }.joined(separator: ", ")
  }
}
