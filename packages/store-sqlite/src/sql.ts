/**
 * `@tidings/store-sqlite/sql`: for a package that keeps tables of its own on a store's database
 * (`store.capabilities.database`, as the dashboard does), what its SQL needs of the store's own
 * conventions, so that it reads the store's tables as the store does: booleans as 0 and 1, an
 * account's row as its record, and LIKE patterns that match text literally.
 */
export { containsPattern } from './like.js';
export { type AccountRow, accountFromRow, type Bit, bit } from './rows.js';
