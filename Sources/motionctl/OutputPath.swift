// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Checks on a path motionctl is about to replace (`replay --out`, `record`, `simulate`), made
/// before anything is read or written. `FileReplacement` then writes a temporary file and renames
/// it over the path; these add what it cannot know:
///
/// - The output must not be an input: renaming over a recording being replayed would replace it
///   by its own fused output. Compared by device and inode (`stat` resolves symbolic links, and
///   hard links share the inode), so `./rec.csv`, a link to it and `rec.csv` are all caught; an
///   input folder (a phyphox or EuRoC export) also refuses any output inside it.
/// - The output must not be a symbolic link. `rename(2)` replaces the link itself, not its target,
///   so writing "through" a link would silently turn it into a plain file and leave the target as
///   it was; following it instead would let a planted link redirect personal motion data. The
///   user is asked for the target's own path. (The check and the rename are not atomic: a link
///   made in between is still replaced, not followed.)
enum OutputPath {
  /// Why `path` must not be written, or `nil` when it may; `inputs` are the paths being read.
  static func refusal(for path: String, inputs: [String]) -> String? {
    var link = stat()
    if lstat(path, &link) == 0, link.st_mode & S_IFMT == S_IFLNK {
      return "it is a symbolic link; give the path of the file itself (replacing the link would "
        + "not write its target)"
    }
    var output = stat()
    let outputExists = stat(path, &output) == 0
    let outputFolder = realFolder(of: path)
    for input in inputs {
      var status = stat()
      guard stat(input, &status) == 0 else { continue }
      if outputExists, status.st_dev == output.st_dev, status.st_ino == output.st_ino {
        return "it is the input recording \(input); refusing to replace it by its own output"
      }
      if status.st_mode & S_IFMT == S_IFDIR, let folder = realPath(input), let outputFolder,
        outputFolder == folder
          || outputFolder.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
      {
        return "it is inside the input recording folder \(input); refusing to write into it"
      }
    }
    return nil
  }

  /// The resolved folder a new file at `path` would be created in, if it exists.
  private static func realFolder(of path: String) -> String? {
    realPath(URL(fileURLWithPath: path).deletingLastPathComponent().path)
  }

  /// `path` with every symbolic link, `.` and `..` resolved, or `nil` when it does not exist.
  private static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}
