/**
 * The message status machine. Pure: given where a message is and an event that arrives,
 * say whether the event moves it and which statuses that implies, so every caller
 * (API, transports, webhook ingest) applies the same rule.
 */
export const MESSAGE_STATUSES = ['QUEUED', 'SENT', 'DELIVERED', 'READ', 'ERROR', 'RECEIVED'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** Outbound progress, lowest first. A message only ever moves right along it. */
export const PROGRESS_ORDER = ['QUEUED', 'SENT', 'DELIVERED', 'READ'] as const;
type ProgressStatus = (typeof PROGRESS_ORDER)[number];

export type NotAppliedReason =
  | 'duplicate' // the message is already in that status
  | 'stale' // the message is already past that status
  | 'final' // ERROR and READ end the timeline
  | 'inbound' // inbound messages have no delivery timeline
  | 'not_outbound_status'; // RECEIVED describes inbound messages only

export type StatusStep = { status: MessageStatus; implied: boolean };

export type StatusDecision = { applied: true; steps: StatusStep[] } | { applied: false; reason: NotAppliedReason };

function progressRank(status: MessageStatus): number {
  return PROGRESS_ORDER.indexOf(status as ProgressStatus);
}

export function decideStatus(current: MessageStatus, incoming: MessageStatus): StatusDecision {
  if (current === 'RECEIVED') {
    return { applied: false, reason: incoming === 'RECEIVED' ? 'duplicate' : 'inbound' };
  }
  if (incoming === 'RECEIVED') return { applied: false, reason: 'not_outbound_status' };
  if (incoming === current) return { applied: false, reason: 'duplicate' };
  if (current === 'ERROR' || current === 'READ') return { applied: false, reason: 'final' };

  if (incoming === 'ERROR') {
    // A failure report after delivery was confirmed contradicts the network's own evidence.
    return current === 'QUEUED' || current === 'SENT'
      ? { applied: true, steps: [{ status: 'ERROR', implied: false }] }
      : { applied: false, reason: 'stale' };
  }

  const from = progressRank(current);
  const to = progressRank(incoming);
  if (to < from) return { applied: false, reason: 'stale' };

  // A skipped step happened even if its report was lost or is late: record it as implied so
  // callbacks stay gap-free (DELIVERED before SENT yields SENT, then DELIVERED).
  const steps = PROGRESS_ORDER.slice(from + 1, to + 1).map((status, index, all) => ({
    status,
    implied: index < all.length - 1,
  }));
  return { applied: true, steps };
}

export function isFinalStatus(status: MessageStatus): boolean {
  return status === 'ERROR' || status === 'READ' || status === 'RECEIVED';
}
