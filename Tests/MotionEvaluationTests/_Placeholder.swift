// SPDX-License-Identifier: Apache-2.0
// Placeholder so the test target builds until its first real test lands; delete it then.
