// SPDX-License-Identifier: Apache-2.0

extension SIMD3 where Scalar == Double {
  /// The index (0 = x, 1 = y, 2 = z) of the component with the largest magnitude; ties go to the
  /// earlier axis.
  var dominantAxisIndex: Int {
    let a = SIMD3(Swift.abs(x), Swift.abs(y), Swift.abs(z))
    if a.x >= a.y && a.x >= a.z { return 0 }
    return a.y >= a.z ? 1 : 2
  }
}
