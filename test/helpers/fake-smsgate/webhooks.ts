/**
 * The phone's webhook queue (carriers-smsgate.md C.4): each event goes to every webhook registered
 * for it, signed afresh at each attempt, retried with doubling waits on anything but 2xx, at least
 * once and, when a test says, repeated under a new envelope id or in reverse order.
 */
import { createHmac } from 'node:crypto';
import { type FakeSmsGateWebhook, nanoid, SMSGATE_APP_VERSION, SMSGATE_DEVICE_ID } from './wire.ts';

export type FakeSmsGateDelivery = { envelopeId: string; event: string; url: string; status: number | 'no answer'; attempt: number };

export type WebhookQueueOptions = {
  webhooks: Map<string, FakeSmsGateWebhook>;
  signing: { signingKey: string; timestampSkewS: number };
  now: () => number;
  retryMs: number;
  maxAttempts: number;
};

export function createWebhookQueue({ webhooks, signing, now, retryMs, maxAttempts }: WebhookQueueOptions) {
  const deliveries: FakeSmsGateDelivery[] = [];
  /** Every event emitted, by envelope id, so that a test can have the phone send it again. */
  const emitted = new Map<string, { event: string; payload: object }>();
  /** Each delivery until it succeeds or gives up, retries included. */
  const pending = new Set<Promise<void>>();
  /** Retry waits in progress, ended early by close(). */
  const waits = new Map<NodeJS.Timeout, () => void>();
  /** While set, emissions are queued here instead of sent. */
  let held: (() => Promise<void>)[] | undefined;
  let closed = false;

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        waits.delete(timer);
        resolve();
      }, ms);
      waits.set(timer, resolve);
    });

  /** One POST, signed over the raw body followed by this attempt's timestamp (PayloadSingingPlugin.kt). */
  async function post(url: string, body: string): Promise<number | 'no answer'> {
    const timestamp = String(Math.floor(now() / 1000) + signing.timestampSkewS);
    const signature = createHmac('sha256', signing.signingKey)
      .update(body + timestamp)
      .digest('hex');
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': `me.capcom.smsgateway/${SMSGATE_APP_VERSION}`,
          'x-signature': signature,
          'x-timestamp': timestamp,
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(5_000),
      });
      await response.arrayBuffer().catch(() => undefined);
      return response.status;
    } catch {
      return 'no answer';
    }
  }

  /** Sends one envelope to one webhook; resolves after the first attempt, while retries go on in `pending`. */
  function deliver(envelopeId: string, webhook: FakeSmsGateWebhook, event: string, payload: object): Promise<void> {
    const body = JSON.stringify({ id: envelopeId, webhookId: webhook.id, event, deviceId: SMSGATE_DEVICE_ID, payload });
    let firstAttemptDone!: () => void;
    const firstAttempt = new Promise<void>((resolve) => (firstAttemptDone = resolve));
    const delivery = (async () => {
      for (let attempt = 1; attempt <= maxAttempts && !closed; attempt++) {
        if (attempt > 1) await wait(retryMs * 2 ** (attempt - 2));
        if (closed) break;
        const status = await post(webhook.url, body);
        deliveries.push({ envelopeId, event, url: webhook.url, status, attempt });
        firstAttemptDone();
        if (typeof status === 'number' && status >= 200 && status < 300) break;
      }
    })().finally(() => {
      firstAttemptDone();
      pending.delete(delivery);
    });
    pending.add(delivery);
    return firstAttempt;
  }

  /** Emits an event to every webhook registered for it; resolves once each has had its first attempt (or at once while held). */
  function emit(event: string, payload: object, envelopeId = nanoid()): Promise<void> {
    emitted.set(envelopeId, { event, payload });
    const send = async () => {
      const targets = [...webhooks.values()].filter((webhook) => webhook.event === event);
      await Promise.all(targets.map((webhook) => deliver(envelopeId, webhook, event, payload)));
    };
    if (held) {
      held.push(send);
      return Promise.resolve();
    }
    return send();
  }

  return {
    deliveries,
    emit,
    /** The app's known duplicate: an event already emitted comes again under a new envelope id. */
    repeat(envelopeId: string): Promise<void> {
      const original = emitted.get(envelopeId);
      if (!original) throw new Error(`no webhook envelope ${envelopeId} was emitted`);
      return emit(original.event, original.payload);
    },
    /** Queues emissions from now on; the returned function sends them newest first, one after another. */
    hold(): () => Promise<void> {
      const queue: (() => Promise<void>)[] = [];
      held = queue;
      return async () => {
        if (held === queue) held = undefined;
        for (const send of queue.reverse()) await send();
      };
    },
    /** Resolves when no delivery or retry is pending; held emissions do not count. */
    async settled(): Promise<void> {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    close() {
      closed = true;
      for (const [timer, resolve] of waits) {
        clearTimeout(timer);
        resolve();
      }
      waits.clear();
    },
  };
}
