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
final class ReadersWriterLock: @unchecked Sendable {
  // Sendable: the pthread lock is the synchronisation itself; the pointer never changes.
  private let lock: UnsafeMutablePointer<pthread_rwlock_t>

  init() {
    lock = .allocate(capacity: 1)
    lock.initialize(to: pthread_rwlock_t())
    let status = pthread_rwlock_init(lock, nil)
    precondition(status == 0, "pthread_rwlock_init failed: \(status)")
  }

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
