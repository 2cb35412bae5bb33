// SPDX-License-Identifier: Apache-2.0
print("benchmarks: under construction")
