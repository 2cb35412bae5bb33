// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whether the current thread is running an update handler of this library (any service's), kept
/// in a thread-local slot. A stop called from inside one handler must not wait for another
/// service's handler: that handler may be waiting to stop the first one (see
/// `UpdateChannel.end()`).
enum HandlerThread {
  /// The thread-local slot: non-nil while a handler runs on the thread. Created once, never
  /// deleted (one key for the life of the process).
  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key, nil)
    // Only EAGAIN (the process's keys exhausted) or ENOMEM: nothing to run without.
    precondition(status == 0, "pthread_key_create failed: \(status)")
    return key
  }()

  /// Any non-nil value marks the slot (never dereferenced).
  private static var mark: UnsafeRawPointer? { UnsafeRawPointer(bitPattern: 1) }

  /// Whether a handler is running on the current thread.
  static var isRunningHandler: Bool { pthread_getspecific(key) != nil }

  /// Runs `handler` with the current thread marked as running a handler (nested calls keep the
  /// mark until the outermost returns).
  static func whileRunningHandler(_ handler: () -> Void) {
    let previous = pthread_getspecific(key)
    pthread_setspecific(key, mark)
    defer { pthread_setspecific(key, previous) }
    handler()
  }
}
