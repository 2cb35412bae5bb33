// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A recording opened by ``RecordingReader``: a ``SampleStream`` that also tells where it came from
/// and how many invalid rows it skipped.
public struct RecordingStream: SampleStream {
  /// The file or folder read.
  public let url: URL
  /// The format it was read as.
  public let format: RecordingFormat
  private var base: any RecordingRowStream

  init(url: URL, format: RecordingFormat, base: any RecordingRowStream) {
    self.url = url
    self.format = format
    self.base = base
  }

  public var descriptor: StreamDescriptor { base.descriptor }

  /// The number of rows left out so far under ``RecordingReader/InvalidRowPolicy/skip``.
  public var skippedRowCount: Int { base.skippedRowCount }

  public mutating func next() throws -> MotionSample? {
    try base.next()
  }
}

/// A reader's stream: samples plus a count of skipped rows.
protocol RecordingRowStream: SampleStream {
  var skippedRowCount: Int { get }
}
