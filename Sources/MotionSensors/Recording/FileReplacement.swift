// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Replacing a file safely: a uniquely named temporary file in the destination's folder, created
/// exclusively with mode 0600 (motion data is personal), synced, then renamed over the destination,
/// which must be missing or a regular file; the folder is synced after the rename so that the new
/// name survives a power cut. A folder, device (`/dev/null`), pipe, socket or symbolic link at the
/// destination is refused and never deleted.
package enum FileReplacement {
  /// Why `path` must not be replaced, or nil when it is missing or a regular file (a symbolic link
  /// is refused whatever it points to).
  package static func refusal(for path: String) -> String? {
    var status = stat()
    // lstat: `rename(2)` would replace a symbolic link itself, not write its target, and a planted
    // link must not redirect personal motion data either; the caller is asked for the real path.
    guard lstat(path, &status) == 0 else {
      return errno == ENOENT ? nil : String(cString: strerror(errno))
    }
    switch status.st_mode & S_IFMT {
    case S_IFREG: return nil
    case S_IFDIR: return "it is a folder"
    case S_IFLNK:
      return "it is a symbolic link; give the path of the file itself (replacing the link would "
        + "not write its target)"
    default: return "it is not a regular file (a device, pipe or socket); refusing to replace it"
    }
  }

  /// Creates a new temporary file next to `path` (`.<name>.partial-<random>`, mode 0600) and
  /// returns its path and open descriptor, or the reason it could not.
  package static func createTemporary(
    near path: String
  ) -> Result<(path: String, descriptor: Int32), FileReplacementError> {
    let url = URL(fileURLWithPath: path)
    let folder = url.deletingLastPathComponent().path
    for _ in 0..<16 {
      let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
      let temporary = folder + "/.\(url.lastPathComponent).partial-\(suffix)"
      // O_EXCL: never opens (or follows a link to) an existing entry.
      let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
      if descriptor >= 0 { return .success((temporary, descriptor)) }
      if errno != EEXIST {
        return .failure(FileReplacementError(reason: String(cString: strerror(errno))))
      }
    }
    return .failure(FileReplacementError(reason: "no unique temporary name in \(folder)"))
  }

  /// Renames the finished temporary file over `path` (checked again just before) and syncs the
  /// folder. The temporary file is removed on failure.
  package static func commit(
    temporary: String, to path: String
  ) -> Result<Void, FileReplacementError> {
    if let refusal = refusal(for: path) {
      unlink(temporary)
      return .failure(FileReplacementError(reason: refusal))
    }
    guard rename(temporary, path) == 0 else {
      let reason = String(cString: strerror(errno))
      unlink(temporary)
      return .failure(FileReplacementError(reason: reason))
    }
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
    let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if descriptor >= 0 {
      _ = fsync(descriptor)
      close(descriptor)
    }
    return .success(())
  }
}

/// Why a file could not be created or replaced.
package struct FileReplacementError: Error, Sendable {
  package var reason: String
}
