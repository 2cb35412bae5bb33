// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors

/// Labelled activity recordings as laid out in `../shared/data/activity`: an `index.csv` with the
/// columns `file, source, subject, …, label` beside the files.
public struct ActivityDataset: Sendable {
  /// One labelled file.
  public struct Entry: Sendable, Equatable {
    public var url: URL
    /// The path as written in the index (`motionsense/sub01_wlk_07.csv`).
    public var name: String
    /// `motionsense` or `qrowd` (any text).
    public var source: String
    /// The person (`S01`, `U2`…); folds never split one.
    public var subject: String
    public var label: ActivityClass
  }

  public var entries: [Entry]

  public init(entries: [Entry]) { self.entries = entries }

  /// Reads the entries for each path: a folder with an `index.csv` (all its files), or a file whose
  /// label is found in an `index.csv` in one of the two folders above it. Rows whose label is not
  /// an ``ActivityClass`` are left out.
  ///
  /// - Throws: ``ActivityEvaluationError`` for a path without an index or a file not in it.
  public static func load(paths: [String]) throws -> ActivityDataset {
    var entries: [Entry] = []
    var seen = Set<String>()
    for path in paths {
      let url = URL(fileURLWithPath: path).standardizedFileURL
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
        throw ActivityEvaluationError("\(path): no such file or folder")
      }
      if isDirectory.boolValue {
        let index = url.appendingPathComponent("index.csv")
        guard FileManager.default.fileExists(atPath: index.path) else {
          throw ActivityEvaluationError("\(path): no index.csv in this folder")
        }
        for entry in try readIndex(index) where seen.insert(entry.url.path).inserted {
          entries.append(entry)
        }
      } else {
        var folder = url.deletingLastPathComponent()
        var found: Entry?
        for _ in 0..<2 {
          let index = folder.appendingPathComponent("index.csv")
          if FileManager.default.fileExists(atPath: index.path) {
            found = try readIndex(index).first { $0.url.path == url.path }
            if found != nil { break }
          }
          folder.deleteLastPathComponent()
        }
        guard let found else {
          throw ActivityEvaluationError("\(path): not listed in an index.csv next to it")
        }
        if seen.insert(found.url.path).inserted { entries.append(found) }
      }
    }
    return ActivityDataset(entries: entries)
  }

  static func readIndex(_ url: URL) throws -> [Entry] {
    let text = try String(contentsOf: url, encoding: .utf8)
    var lines = text.split(whereSeparator: \.isNewline).map {
      $0.split(separator: ",", omittingEmptySubsequences: false)
    }
    guard !lines.isEmpty else { throw ActivityEvaluationError("\(url.path): empty index") }
    let header = lines.removeFirst().map { $0.trimmingCharacters(in: .whitespaces) }
    guard let file = header.firstIndex(of: "file"), let source = header.firstIndex(of: "source"),
      let subject = header.firstIndex(of: "subject"), let label = header.firstIndex(of: "label")
    else {
      throw ActivityEvaluationError(
        "\(url.path): index needs the columns file, source, subject, label")
    }
    let folder = url.deletingLastPathComponent()
    let width = max(file, source, subject, label)
    return lines.compactMap { row in
      guard row.count > width, let activity = ActivityClass(label: String(row[label])) else {
        return nil
      }
      return Entry(
        url: folder.appendingPathComponent(String(row[file])).standardizedFileURL,
        name: String(row[file]),
        source: String(row[source]), subject: String(row[subject]), label: activity)
    }
  }
}
