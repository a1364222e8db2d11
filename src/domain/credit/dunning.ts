/**
 * Dunning schedule (pure; docs/credit.md "Dunning"). Reminders at offsets in days from the due
 * date (default -7, 0, +7, +14) and the credit hold at +30 days. `dayMs` is the length of a day
 * (tests shorten it); the due instant is the invoice's due date (tests may put it a few seconds
 * after issue instead).
 *
 * Steps already past when the schedule is made (a late start, a due-on-receipt invoice, a
 * refund that reopens an old invoice) are dropped, except the latest past reminder (the customer
 * still hears once where it stands) and the hold, which happens at once when its time has passed.
 */
export interface DunningConfig {
  reminderOffsetsDays: readonly number[];
  holdAfterDays: number;
  dayMs: number;
}

export const DEFAULT_DUNNING: DunningConfig = { reminderOffsetsDays: [-7, 0, 7, 14], holdAfterDays: 30, dayMs: 86_400_000 };

export type DunningStepKind = 'reminder' | 'hold';

export interface DunningStep {
  /** Stable per invoice: `due-7`, `due`, `due+7`, `due+14`, `hold`; the e-mail and webhook keys. */
  key: string;
  kind: DunningStepKind;
  /** Days from the due date (negative before it). */
  days: number;
  atMs: number;
}

export const stepKey = (days: number) => (days === 0 ? 'due' : days < 0 ? `due${days}` : `due+${days}`);

export function dunningSchedule(dueMs: number, nowMs: number, cfg: DunningConfig): DunningStep[] {
  const reminders: DunningStep[] = [...new Set(cfg.reminderOffsetsDays)]
    .filter((d) => d < cfg.holdAfterDays)
    .sort((a, b) => a - b)
    .map((days) => ({ key: stepKey(days), kind: 'reminder' as const, days, atMs: dueMs + days * cfg.dayMs }));
  const past = reminders.filter((s) => s.atMs <= nowMs);
  const keep = [...(past.length ? [{ ...past[past.length - 1], atMs: nowMs }] : []), ...reminders.filter((s) => s.atMs > nowMs)];
  const holdAt = dueMs + cfg.holdAfterDays * cfg.dayMs;
  return [...keep, { key: 'hold', kind: 'hold', days: cfg.holdAfterDays, atMs: Math.max(holdAt, nowMs) }];
}

/** Which template a reminder uses: before or on the due date a reminder, afterwards an overdue notice. */
export const reminderTemplate = (days: number): 'invoice-reminder' | 'invoice-overdue' => (days <= 0 ? 'invoice-reminder' : 'invoice-overdue');
