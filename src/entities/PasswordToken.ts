import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { User } from './User.js';

/** One-time set-password link token (only its SHA-256 is stored). */
export const PasswordToken = defineEntity({
  name: 'PasswordToken',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    user: () => p.manyToOne(User).deleteRule('cascade'),
    tokenHash: p.string().unique().hidden(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type PasswordToken = InferEntity<typeof PasswordToken>;
