import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { makeTestApp } from '../helpers/app.ts';
import { show } from '../helpers/fixtures.ts';
import { appWithAccount, dispatcherFor, onCleanup, receiver, report, sendWithCallback } from './setup.ts';

describe('secret rotation', () => {
  it('signs with both secrets for 24 h after a rotation, then with the new one only', async () => {
    const { t, account } = await appWithAccount();
    t.clock.set(Date.now());
    const hook = await receiver();
    const oldSecret = (await t.call('GET', '/accounts/webhooks', account)).body.secret;
    const rotated = await t.call('POST', '/accounts/webhooks/secret', account);
    expect(rotated.status, show(rotated.body)).toBe(200);
    const newSecret = rotated.body.secret;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    expect((await t.call('GET', '/accounts/webhooks', account)).body.secret).toBe(newSecret);

    const handle = await sendWithCallback(t, account, hook.url());
    const dispatcher = dispatcherFor(t);
    await dispatcher.runOnce();
    const during = hook.received[0]!;
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(during.headers['svc-signing-secret']).toBe(newSecret);
    for (const secret of [oldSecret, newSecret]) {
      expect(() => new Webhook(secret).verify(during.body, during.headers as Record<string, string>), secret).not.toThrow();
    }

    t.clock.advance(24 * 3600_000 + 1);
    await report(t, handle, 'SENT');
    await dispatcher.runOnce();
    const after = hook.received[1]!;
    const signatures = String(after.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(1);
    // The verifier would refuse the (fake, future) timestamp, so compare with the package's own signer.
    const signedAt = new Date(Number(after.headers['webhook-timestamp']) * 1000);
    expect(signatures[0]).toBe(new Webhook(newSecret).sign(String(after.headers['webhook-id']), signedAt, after.body));
  });
});

describe('receiver down across a restart', () => {
  it('a new dispatcher on the same database file delivers everything once the receiver is back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'textrelay-webhooks-'));
    onCleanup(() => rmSync(dir, { recursive: true, force: true }));
    const database = join(dir, 'textrelay.db');

    // The receiver's port, free while it is down.
    const probe = await receiver();
    const port = probe.port;
    await probe.close();

    const first = makeTestApp({ database });
    const account = await first.createAccount();
    const handle = await sendWithCallback(first, account, `http://127.0.0.1:${port}/hook`);
    await report(first, handle, 'SENT');
    const before = dispatcherFor(first);
    expect(await before.runOnce(), 'only the QUEUED callback goes first; it is refused').toBe(1);
    await before.stop();
    const resumeAt = first.clock.now();
    first.db.$client.close();

    const received: { id: string; status: string }[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        received.push({ id: String(req.headers['webhook-id']), status: JSON.parse(body).status });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const second = makeTestApp({ database });
    onCleanup(() => {
      second.db.$client.close();
    });
    second.clock.set(resumeAt + 5_000);
    expect(await dispatcherFor(second).runOnce()).toBe(2);
    expect(received.map((r) => r.status)).toEqual(['QUEUED', 'SENT']);
    const listed = await second.call('GET', '/accounts/webhooks/deliveries', account);
    expect(listed.body.deliveries.map((d: any) => [d.state, d.attempts.length])).toEqual([
      ['delivered', 1],
      ['delivered', 2],
    ]);
  });
});
