/**
 * A line's public identity and state (lines.getState). Pure: the worker_id is derived from the
 * number alone, so every view (lines state, events, the message listing's filter) agrees on it.
 */
import { toIso } from './dates.ts';

/** FNV-1a, 32 bits: stable across processes and versions, and enough to tell an account's lines apart. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** textrelay's stable id of a line, e.g. `w_3f2a9c01`. */
export function workerIdOf(lineNumber: string): string {
  return `w_${fnv1a(lineNumber).toString(16).padStart(8, '0')}`;
}

/** `statusChangedAt` when the status changed after the line was added (it went OFFLINE, or came back). */
export type LineFacts = { number: string; createdAt: number; statusChangedAt?: number };

/**
 * Every textrelay line is its account's own and online from the moment it was added, unless this
 * instance cannot serve it (`offlineReason`: e.g. bound to no carrier): then OFFLINE, saying why.
 */
export function toLineState(line: LineFacts, offlineReason?: string) {
  return {
    sendblue_number: line.number,
    worker_id: workerIdOf(line.number),
    assignment: 'assigned' as const,
    status: offlineReason === undefined ? ('ONLINE' as const) : ('OFFLINE' as const),
    status_changed_at: toIso(line.statusChangedAt ?? line.createdAt),
    degraded_since: null,
    effective_until: null,
    ...(offlineReason === undefined ? {} : { offline_reason: offlineReason }),
  };
}

export type LineState = ReturnType<typeof toLineState>;
