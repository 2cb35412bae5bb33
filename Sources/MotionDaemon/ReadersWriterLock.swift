// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A readers–writer lock (POSIX `pthread_rwlock_t`): any number of readers at once, or one writer.
///
/// The history store is read by client queries on their sessions' threads while a privacy
/// change or shutdown may close it: readers hold the read side for the whole query, closing
/// takes the write side, so a query never touches a store that is being or has been closed.
///
/// A waiting writer goes first (glibc's writer-preferring kind): with the default kind, new
/// readers kept entering while a writer waited, so queries arriving back to back (a few clients
/// asking for status, whose store scan holds the read side for a fifth of a second on a 3-day
/// store) could hold off a privacy denial for ever, and with it every other history request
/// waiting behind the denial. The preference is safe here because no thread takes the read side
/// twice (a nested read would wait behind the writer that waits for it).
final class ReadersWriterLock: @unchecked Sendable {
  // Sendable: the pthread lock is the synchronisation itself; the pointer never changes.
  private let lock: UnsafeMutablePointer<pthread_rwlock_t>

  init() {
    lock = .allocate(capacity: 1)
    lock.initialize(to: pthread_rwlock_t())
    #if canImport(Glibc)
      var attributes = pthread_rwlockattr_t()
      pthread_rwlockattr_init(&attributes)
      defer { pthread_rwlockattr_destroy(&attributes) }
      if Self.writerPreferenceIsSound {
        pthread_rwlockattr_setkind_np(
          &attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
      }
      let status = pthread_rwlock_init(lock, &attributes)
    #else
      let status = pthread_rwlock_init(lock, nil)
    #endif
    precondition(status == 0, "pthread_rwlock_init failed: \(status)")
  }

  #if canImport(Glibc)
    /// Whether this glibc's writer-preferring kind is safe: before 2.29 a reader could wait for
    /// ever on an unlocked lock of that kind (glibc bug 23861, fixed in 2.29; Amazon Linux 2 and
    /// RHEL 8 ship older versions). There the default kind is used, and a denial may wait for
    /// queries as before.
    static let writerPreferenceIsSound: Bool = {
      var buffer = [CChar](repeating: 0, count: 64)
      let length = confstr(Int32(_CS_GNU_LIBC_VERSION), &buffer, buffer.count)
      guard length > 0, length <= buffer.count else { return false }
      // "glibc 2.36"
      let text = String(
        decoding: buffer.prefix(length - 1).map { UInt8(bitPattern: $0) }, as: UTF8.self)
      let numbers = text.split(separator: " ").last?.split(separator: ".").compactMap { Int($0) }
      guard let numbers, numbers.count >= 2 else { return false }
      return (numbers[0], numbers[1]) >= (2, 29)
    }()
  #endif

  deinit {
    pthread_rwlock_destroy(lock)
    lock.deinitialize(count: 1)
    lock.deallocate()
  }

  /// Runs `body` holding the read side (shared with other readers).
  func withReadLock<T>(_ body: () throws -> T) rethrows -> T {
    pthread_rwlock_rdlock(lock)
    defer { pthread_rwlock_unlock(lock) }
    return try body()
  }

  /// Runs `body` holding the write side (alone).
  func withWriteLock<T>(_ body: () throws -> T) rethrows -> T {
    pthread_rwlock_wrlock(lock)
    defer { pthread_rwlock_unlock(lock) }
    return try body()
  }
}
