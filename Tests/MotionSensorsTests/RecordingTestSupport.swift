// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest
import ZIPFoundation

/// A temporary folder for fixture files written by a test, removed afterwards.
final class RecordingFixtureFolder {
  let url: URL

  init(_ name: String = #function) throws {
    let safe = name.filter { $0.isLetter || $0.isNumber }
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("OpenCoreMotion-\(safe)-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: url) }

  /// Writes `text` to `name` (sub-folders are created) and returns its URL.
  @discardableResult
  func write(_ text: String, to name: String) throws -> URL {
    let file = url.appendingPathComponent(name)
    try FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: file)
    return file
  }

  /// The names of the files in the folder (hidden ones included).
  var fileNames: [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: url.path).sorted()) ?? []
  }
}

extension RecordingFixtureFolder {
  /// Writes a zip archive holding `files` (relative path → text) and returns its URL.
  @discardableResult
  func writeZip(_ files: [(String, String)], to name: String) throws -> URL {
    let url = self.url.appendingPathComponent(name)
    let archive = try Archive(url: url, accessMode: .create)
    for (path, text) in files {
      let data = Data(text.utf8)
      try archive.addEntry(
        with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate,
        provider: { position, size in data.subdata(in: Int(position)..<Int(position) + size) })
    }
    return url
  }
}
