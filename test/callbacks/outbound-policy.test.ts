import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectMessageError } from '../helpers/expect.ts';
import { ALICE, show } from '../helpers/fixtures.ts';
import { startInProcessService } from '../helpers/in-process-service.ts';
import { eventually } from '../helpers/live.ts';
import { onCleanup, receiver } from './setup.ts';

/**
 * The attacker's scenario, through what `serve` runs configured by its environment alone: a
 * status_callback pointing at an internal service, whose answer the delivery log would show.
 */

const UPSTREAM = {
  TEXTRELAY_TRANSPORT: 'upstream',
  // A name that does not resolve: the relay's own requests fail, which these tests do not look at.
  TEXTRELAY_UPSTREAM_URL: 'https://upstream.invalid',
  TEXTRELAY_UPSTREAM_KEY_ID: 'key',
  TEXTRELAY_UPSTREAM_SECRET: 'secret',
  TEXTRELAY_PUBLIC_URL: 'https://relay.example.com',
};

async function serviceWith(env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-outbound-'));
  const service = await startInProcessService({ TEXTRELAY_DB: join(dir, 'textrelay.db'), TEXTRELAY_SANDBOX_STEP_MS: '60000', ...env });
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  onCleanup(() => service.stop());
  return service;
}

/** An internal admin service on loopback that would hand its secrets to whoever asks. */
async function internalAdmin() {
  return receiver((_request, _index, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' }).end('admin-token=hunter2');
  });
}

describe('callbacks to loopback, per mode, as configured by the environment', () => {
  it('upstream mode by default: a loopback status_callback is refused with 400 naming the field, and nothing is posted or read back', async () => {
    const admin = await internalAdmin();
    const service = await serviceWith(UPSTREAM);
    const reply = await service.call('POST', '/api/send-message', {
      number: ALICE,
      content: 'hi',
      status_callback: admin.url('/internal/admin'),
    });
    expectMessageError(reply, 400, 4000);
    expect(reply.body.error_message).toMatch(/status_callback/);
    expect(reply.body.error_message).toMatch(/outbound address policy/);

    const registered = await service.call('POST', '/accounts/webhooks', { webhooks: [admin.url('/internal/admin')], type: 'receive' });
    expectMessageError(registered, 400, 4000);
    expect(registered.body.error_message).toMatch(/webhooks\[0\]/);

    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(admin.received, 'nothing reached the internal service').toEqual([]);
    const log = await service.call('GET', '/accounts/webhooks/deliveries');
    expect(JSON.stringify(log.body)).not.toContain('hunter2');
    expect((await service.call('GET', '/accounts/messages')).body.messages, 'nothing written').toEqual([]);
  });

  it('sandbox mode by default: a loopback receiver is posted to (a developer machine)', async () => {
    const hook = await internalAdmin();
    const service = await serviceWith({});
    const reply = await service.call('POST', '/api/send-message', { number: ALICE, content: 'hi', status_callback: hook.url() });
    expect(reply.status, show(reply.body)).toBe(202);
    await eventually('the QUEUED callback', async () => (hook.received.length > 0 ? true : undefined), 10_000);
  });

  it('upstream mode with TEXTRELAY_ALLOW_PRIVATE_CALLBACKS=true: a loopback receiver is posted to', async () => {
    const hook = await internalAdmin();
    const service = await serviceWith({ ...UPSTREAM, TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: 'true' });
    const reply = await service.call('POST', '/api/send-message', { number: ALICE, content: 'hi', status_callback: hook.url() });
    expect(reply.status, show(reply.body)).toBe(202);
    await eventually('the QUEUED callback', async () => (hook.received.length > 0 ? true : undefined), 10_000);
  });
});

describe('link-local and cloud-metadata callbacks', () => {
  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00:ec2::254]/latest/',
    'http://100.100.100.200/latest/meta-data/',
    'http://[fe80::1]/x',
  ])('sandbox mode refuses %s by default, and accepts it with TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS=true', async (url) => {
    const refused = await (await serviceWith({})).call('POST', '/api/send-message', { number: ALICE, content: 'hi', status_callback: url });
    expectMessageError(refused, 400, 4000);
    expect(refused.body.error_message).toMatch(/status_callback is refused: .* link-local or cloud-metadata/);

    const allowed = await (await serviceWith({ TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS: 'true' })).call('POST', '/api/send-message', {
      number: ALICE,
      content: 'hi',
      status_callback: url,
    });
    expect(allowed.status, show(allowed.body)).toBe(202);
  });
});
