/** The import job's enumerations: what a job can import, its states, modes and input formats. */
export const IMPORT_KINDS = ['customers', 'products', 'prices', 'orders', 'invoices', 'user-customer-links', 'inventory', 'catalog-assignments', 'price-lists'] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];
export const IMPORT_STATUSES = ['Queued', 'Running', 'Paused', 'Succeeded', 'SucceededWithErrors', 'Failed', 'Cancelled'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];
export type ImportMode = 'apply' | 'validate';
export type ImportOnError = 'skip' | 'abort';
export type ImportFormat = 'csv' | 'ndjson' | 'json';
