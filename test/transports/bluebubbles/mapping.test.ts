import { describe, expect, it } from 'vitest';
import { mapReadBack, mapWebhookEvent } from '../../../src/transports/bluebubbles/mapping.ts';
import { BbMessage } from '../../../src/transports/bluebubbles/schemas.ts';

const own = {
  guid: 'G-1',
  text: 'hello',
  error: 0,
  isFromMe: true,
  isDelivered: false,
  dateCreated: 1_000,
  dateDelivered: null,
  dateRead: null,
  itemType: 0,
  associatedMessageGuid: null,
  handle: { address: '+15551234567', service: 'iMessage' },
  attachments: [],
  chats: [{ guid: 'iMessage;-;+15551234567', style: 45 }],
};
const inbound = { ...own, guid: 'G-in', isFromMe: false, text: 'hi there' };
const parse = (value: object) => BbMessage.parse(value);

describe('BlueBubbles webhook events as textrelay events', () => {
  const statusCases: [string, string, object, { status: string; errorMessage?: string; wasDowngraded?: boolean; tempGuid?: string }][] = [
    ['echo with the tempGuid', 'new-message', { ...own, tempGuid: 'ours' }, { status: 'SENT', tempGuid: 'ours', wasDowngraded: false }],
    ['echo from the poller', 'new-message', own, { status: 'SENT' }],
    ['delivery flag', 'updated-message', { ...own, isDelivered: true, chats: undefined }, { status: 'DELIVERED' }],
    ['delivery date only', 'updated-message', { ...own, dateDelivered: 2_000, chats: undefined }, { status: 'DELIVERED' }],
    ['read', 'updated-message', { ...own, isDelivered: true, dateDelivered: 2_000, dateRead: 3_000 }, { status: 'READ' }],
    ['error column', 'updated-message', { ...own, error: 22 }, { status: 'ERROR', errorMessage: 'BlueBubbles error 22' }],
    ['send error event', 'message-send-error', { ...own, error: 4 }, { status: 'ERROR', errorMessage: 'BlueBubbles error 4' }],
    ['send error without a code', 'message-send-error', own, { status: 'ERROR', errorMessage: 'BlueBubbles reported a send error' }],
    [
      'SMS chat on macOS before 26',
      'new-message',
      { ...own, handle: null, chats: [{ guid: 'SMS;-;+15551234567' }] },
      { status: 'SENT', wasDowngraded: true },
    ],
    [
      'SMS handle in a Tahoe any chat',
      'new-message',
      { ...own, handle: { address: '+1555', service: 'SMS' } },
      { status: 'SENT', wasDowngraded: true },
    ],
  ];
  it.each(statusCases)('%s', (_, type, data, expected) => {
    const event = mapWebhookEvent(type, parse(data));
    expect(event).toMatchObject({
      kind: 'status',
      guid: (data as { guid: string }).guid,
      eventKey: `${(data as { guid: string }).guid}:${expected.status}`,
      ...expected,
    });
  });

  it('keys both echoes of one send as one event', () => {
    const first = mapWebhookEvent('new-message', parse({ ...own, tempGuid: 'ours' }));
    const second = mapWebhookEvent('new-message', parse(own));
    expect(first.kind === 'status' && second.kind === 'status' && first.eventKey === second.eventKey).toBe(true);
  });

  const ignoredCases: [string, string, object, string][] = [
    ['tapback', 'new-message', { ...inbound, associatedMessageGuid: 'p:0/G-x', text: 'Loved “hi”' }, 'tapback'],
    ['group rename', 'new-message', { ...inbound, itemType: 2, text: null }, 'item type 2'],
    ['empty message', 'new-message', { ...inbound, text: '\uFFFC ' }, 'empty message'],
    ['update of an inbound message', 'updated-message', { ...inbound, dateRead: 5_000 }, 'update of an inbound message'],
    ['typing', 'typing-indicator', own, 'event typing-indicator'],
  ];
  it.each(ignoredCases)('skips a %s', (_, type, data, reason) => {
    expect(mapWebhookEvent(type, parse(data))).toEqual({ kind: 'ignored', reason });
  });

  const inboundCases: [string, object, object][] = [
    [
      'one-to-one text',
      inbound,
      { from: '+15551234567', content: 'hi there', chatGuid: 'iMessage;-;+15551234567', isGroup: false, service: 'iMessage' },
    ],
    ['e-mail sender', { ...inbound, handle: { address: 'ann@example.com', service: 'iMessage' } }, { from: 'ann@example.com' }],
    ['SMS sender', { ...inbound, handle: { address: '+15551234567', service: 'SMS' } }, { service: 'SMS' }],
    [
      'group member',
      {
        ...inbound,
        chats: [{ guid: 'iMessage;+;chat42', style: 43, participants: [{ address: '+15551234567' }, { address: '+15557654321' }] }],
      },
      { isGroup: true, chatGuid: 'iMessage;+;chat42', participants: ['+15551234567', '+15557654321'] },
    ],
    [
      'photo without text',
      { ...inbound, text: '\uFFFC', attachments: [{ guid: 'A-1', mimeType: 'image/png', transferName: 'cat.png' }] },
      { content: '', attachments: [{ guid: 'A-1', mimeType: 'image/png', name: 'cat.png' }] },
    ],
  ];
  it.each(inboundCases)('relays a %s', (_, data, expected) => {
    expect(mapWebhookEvent('new-message', parse(data))).toMatchObject({ kind: 'inbound', guid: 'G-in', ...expected });
  });

  it('reads back our own messages as statuses and others as inbound', () => {
    expect(mapReadBack(parse({ ...own, dateRead: 9 }))).toMatchObject({ kind: 'status', status: 'READ' });
    expect(mapReadBack(parse(inbound))).toMatchObject({ kind: 'inbound', guid: 'G-in' });
  });
});
