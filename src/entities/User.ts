import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/** A person who can log in; e-mail is unique across the platform (stored lower-cased). */
export const User = defineEntity({
  name: 'User',
  tableName: 'app_user',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    email: p.string().unique(),
    firstName: p.string(),
    lastName: p.string(),
    phoneNumber: p.string().nullable(),
    passwordHash: p.string().nullable().hidden(),
    isSuper: p.boolean().default(false),
    /** Carried by the user's tokens; bumped when the password changes, which ends every earlier session. */
    tokenVersion: p.integer().default(1),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
export type User = InferEntity<typeof User>;
