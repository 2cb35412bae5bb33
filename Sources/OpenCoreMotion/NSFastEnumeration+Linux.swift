// SPDX-License-Identifier: Apache-2.0

import Foundation

#if !canImport(Darwin)
  /// A stand-in for Objective-C fast enumeration, which Linux's Foundation does not have.
  ///
  /// On iOS, `CMSensorDataList` is enumerable only through `NSFastEnumeration`, so Swift apps write
  /// the usual bridge themselves:
  ///
  /// ```swift
  /// extension CMSensorDataList: Sequence {
  ///   public func makeIterator() -> NSFastEnumerationIterator { NSFastEnumerationIterator(self) }
  /// }
  /// ```
  ///
  /// That extension names `NSFastEnumerationIterator`, which swift-corelibs-foundation does not
  /// declare. This protocol and ``NSFastEnumerationIterator`` exist so that such code compiles
  /// unchanged on Linux. (`CMSensorDataList` is already a `Sequence` here, so the compiler only
  /// warns that the app's conformance is redundant, and iteration uses the list's own iterator.)
  ///
  /// Only declared where Foundation lacks it; on Apple platforms Foundation's protocol is used.
  public protocol NSFastEnumeration: AnyObject {
    /// The enumerated objects in order. Linux has no `countByEnumerating(with:objects:count:)`
    /// (it needs Objective-C's autoreleasing pointers), so conforming types hand out their
    /// elements one by one through this iterator instead.
    func makeFastEnumerationIterator() -> AnyIterator<Any>
  }

  /// Iterates any ``NSFastEnumeration`` as untyped elements, as Foundation's type of the same name
  /// does on Apple platforms: `for case let item as T in …` picks the elements of type `T`.
  public struct NSFastEnumerationIterator: IteratorProtocol {
    private let elements: AnyIterator<Any>

    /// An iterator over the elements of `enumerable`, in its own order.
    public init(_ enumerable: any NSFastEnumeration) {
      elements = enumerable.makeFastEnumerationIterator()
    }

    public mutating func next() -> Any? { elements.next() }
  }

  extension CMSensorDataList: NSFastEnumeration {
    public func makeFastEnumerationIterator() -> AnyIterator<Any> {
      var samples = makeIterator()
      return AnyIterator { samples.next() }
    }
  }
#endif
