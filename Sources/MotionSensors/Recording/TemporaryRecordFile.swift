// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// An array of fixed-size records kept in an unnamed temporary file (see
/// ``openUnnamedTemporaryFile(prefix:)``), with one block of it in memory.
///
/// For data too long to hold in memory on the boards we target (a day of samples at 100 Hz) that is
/// walked in order, forward or backward: each access outside the cached block writes the block
/// back if it changed and reads the other one, so a pass over `n` records costs about
/// `n / recordsPerBlock` reads and writes of one block, and the memory stays one block whatever
/// `n` is.
///
/// An I/O error (a full disk) does not trap and is not thrown from the subscript: the first one
/// is kept in ``failure``, reads of what could not be read give zero bytes, and the owner checks
/// ``failure`` when the pass is over.
///
/// Not thread-safe: one owner at a time (it is not `Sendable`).
package final class TemporaryRecordFile<Record: BitwiseCopyable> {
  /// Records per cached block.
  package let recordsPerBlock: Int
  /// One more than the highest index written.
  package private(set) var count = 0
  /// The first I/O error, if any: then some records read as zero bytes and some writes were lost.
  package private(set) var failure: TemporaryRecordFileError?

  private let descriptor: Int32
  private let stride = MemoryLayout<Record>.stride
  private let block: UnsafeMutableRawBufferPointer
  /// Which block `block` holds (-1: none yet), and whether it changed since it was read.
  private var cachedBlock = -1
  private var cachedBlockChanged = false

  /// A new, empty file.
  ///
  /// - Parameters:
  ///   - prefix: the start of the file's short-lived name.
  ///   - directory: where to create it (by default `$TMPDIR`, else `/tmp`).
  ///   - blockByteCount: the size of the block held in memory (at least one record).
  /// - Throws: ``TemporaryRecordFileError`` when `directory` has no room for a new file.
  package init(
    prefix: String, in directory: String = NSTemporaryDirectory(), blockByteCount: Int = 1 << 20
  ) throws {
    guard let descriptor = openUnnamedTemporaryFile(prefix: prefix, in: directory) else {
      throw TemporaryRecordFileError(
        description:
          "cannot create a temporary file in \(directory) (\(String(cString: strerror(errno)))); set TMPDIR to a writable directory"
      )
    }
    self.descriptor = descriptor
    recordsPerBlock = Swift.max(1, blockByteCount / Swift.max(1, MemoryLayout<Record>.stride))
    block = .allocate(
      byteCount: recordsPerBlock * Swift.max(1, MemoryLayout<Record>.stride),
      alignment: MemoryLayout<Record>.alignment)
    block.initializeMemory(as: UInt8.self, repeating: 0)
  }

  deinit {
    close(descriptor)
    block.deallocate()
  }

  /// Appends `record` after the last one written.
  package func append(_ record: Record) {
    self[count] = record
  }

  /// The record at `index` (`index ≥ 0`); zero bytes where nothing was written.
  package subscript(index: Int) -> Record {
    get {
      select(blockOf: index)
      return block.load(
        fromByteOffset: (index % recordsPerBlock) * stride, as: Record.self)
    }
    set {
      select(blockOf: index)
      block.storeBytes(
        of: newValue, toByteOffset: (index % recordsPerBlock) * stride, as: Record.self)
      cachedBlockChanged = true
      count = Swift.max(count, index + 1)
    }
  }

  /// Writes the cached block back if it changed (before the file is read by another means, or to
  /// learn of a write error now rather than at the next block change).
  package func flush() {
    guard cachedBlock >= 0, cachedBlockChanged else { return }
    cachedBlockChanged = false
    let first = cachedBlock * recordsPerBlock
    let byteCount = Swift.min(recordsPerBlock, count - first) * stride
    let written = transfer(byteCount, failing: "cannot write a temporary file") { done in
      pwrite(
        descriptor, block.baseAddress! + done, byteCount - done, off_t(first * stride + done))
    }
    // A write that moves nothing without an error is a failure too.
    if written < byteCount, failure == nil {
      failure = TemporaryRecordFileError(description: "cannot write a temporary file (short write)")
    }
  }

  private func select(blockOf index: Int) {
    precondition(index >= 0, "TemporaryRecordFile: negative index")
    let wanted = index / recordsPerBlock
    guard wanted != cachedBlock else { return }
    flush()
    cachedBlock = wanted
    let first = wanted * recordsPerBlock
    // Only what was written is read; the rest of the block is zero.
    let byteCount = Swift.max(0, Swift.min(recordsPerBlock, count - first)) * stride
    let done = transfer(byteCount, failing: "cannot read a temporary file") { done in
      pread(
        descriptor, block.baseAddress! + done, byteCount - done, off_t(first * stride + done))
    }
    if done < block.count {
      UnsafeMutableRawBufferPointer(rebasing: block[done...]).initializeMemory(
        as: UInt8.self, repeating: 0)
    }
  }

  /// Calls `operation` (a `pread` or `pwrite` of the rest of `byteCount` bytes, given the bytes
  /// done so far) until all are done, the file ends (a read returning 0) or it fails (kept in
  /// ``failure`` with `message`); retries on EINTR. Returns the bytes done.
  private func transfer(
    _ byteCount: Int, failing message: String, _ operation: (_ done: Int) -> Int
  ) -> Int {
    var done = 0
    while done < byteCount {
      let result = operation(done)
      if result < 0 {
        if errno == EINTR { continue }
        fail(message)
        break
      }
      if result == 0 { break }
      done += result
    }
    return done
  }

  private func fail(_ message: String) {
    if failure == nil {
      failure = TemporaryRecordFileError(
        description: "\(message) (\(String(cString: strerror(errno))))")
    }
  }
}

/// An error creating, reading or writing a ``TemporaryRecordFile``.
package struct TemporaryRecordFileError: Error, CustomStringConvertible {
  package var description: String
}
