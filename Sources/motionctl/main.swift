// SPDX-License-Identifier: Apache-2.0
print("motionctl: under construction")
