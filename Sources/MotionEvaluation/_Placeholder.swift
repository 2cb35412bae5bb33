// SPDX-License-Identifier: Apache-2.0
// Placeholder so the target builds until its first real file lands; delete it then.
