// SPDX-License-Identifier: Apache-2.0

import MotionConcurrency

// `Locked` and `SubscriberFanOut` live in MotionConcurrency, below both MotionSensors and
// MotionRecognition (whose `MotionEventRecognizer` shares the fan-out but must not depend on the
// sources). These names keep them reachable as before from every module that imports MotionSensors,
// so only the two modules at the bottom import MotionConcurrency itself.

/// A value guarded by a lock (``MotionConcurrency/Locked``).
package typealias Locked<Value> = MotionConcurrency.Locked<Value>

/// Ordered delivery to subscribers that stops when a removal returns
/// (``MotionConcurrency/SubscriberFanOut``).
package typealias SubscriberFanOut<Event> = MotionConcurrency.SubscriberFanOut<Event>

/// Runs an `AsyncStream` termination's blocking work off the terminating task
/// (``MotionConcurrency/StreamTermination``).
package typealias StreamTermination = MotionConcurrency.StreamTermination

/// A first-in first-out queue that releases what it hands out (``MotionConcurrency/FIFOQueue``).
package typealias FIFOQueue<Element> = MotionConcurrency.FIFOQueue<Element>

/// When a running total of refused or dropped things is worth a notice
/// (``MotionConcurrency/PowerOfTenReports``).
package typealias PowerOfTenReports = MotionConcurrency.PowerOfTenReports
