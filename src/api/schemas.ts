/** The shared yup building blocks live in src/domain/schemas.ts (imports validate records with them too). */
export * from '../domain/schemas.js';
