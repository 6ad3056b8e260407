/**
 * The Mac behind the fake BlueBubbles server: its chats and messages, and the webhooks it pushes,
 * which misbehave as carriers.md A.7 says real ones do (two echoes, no chats on updates, no
 * retries, dropped while nobody listens). Test code drives it directly.
 */
import { randomUUID } from 'node:crypto';

export type FakeHandle = { address: string; service: string };
export type FakeChat = { guid: string; style: 43 | 45; displayName: string; participants: FakeHandle[]; iconBytes?: Buffer };
export type FakeAttachment = { guid: string; mimeType: string; transferName: string; totalBytes: number; bytes: Buffer };
export type FakeMessage = {
  guid: string;
  text: string;
  error: number;
  isFromMe: boolean;
  isDelivered: boolean;
  dateCreated: number;
  dateDelivered: number | null;
  dateRead: number | null;
  itemType: number;
  associatedMessageGuid: string | null;
  handle: FakeHandle | null;
  attachments: FakeAttachment[];
  chatGuid: string;
};
export type FakeWebhook = { id: number; url: string; events: string[]; created: number };

export function createWorld() {
  const chats = new Map<string, FakeChat>();
  const messages = new Map<string, FakeMessage>();
  const webhooks: FakeWebhook[] = [];
  const pushes = new Set<Promise<unknown>>();
  /** Every webhook POST attempted, delivered or not. */
  const pushed: { type: string; url: string; delivered: boolean; data: any }[] = [];
  let nextWebhookId = 1;
  let clock = Date.now();

  const world = {
    chats,
    messages,
    webhooks,
    pushed,
    /** Events raised while true are lost, as BlueBubbles loses them while the receiver is down. */
    dropping: false,
    /** Addresses Apple does not know as iMessage: availability answers false, sends go as SMS. */
    smsOnly: new Set<string>(),
    /** Attachments whose download the server answers with a 500 (not on the Mac, unreadable). */
    unservable: new Set<string>(),
    /** macOS 26 names every one-to-one chat `any;-;…`. */
    tahoe: false,
    /** Strictly increasing times, so "after" queries never tie. */
    now(): number {
      clock = Math.max(clock + 1, Date.now());
      return clock;
    },
    chat(guid: string): FakeChat | undefined {
      return chats.get(guid);
    },
    ensureChat(guid: string, participants: string[], service: string): FakeChat {
      let chat = chats.get(guid);
      if (!chat) {
        const style = guid.split(';')[1] === '+' ? 43 : 45;
        chat = { guid, style, displayName: '', participants: participants.map((address) => ({ address, service })) };
        chats.set(guid, chat);
      }
      return chat;
    },
    oneToOneGuid(address: string, service: 'iMessage' | 'SMS'): string {
      return `${world.tahoe ? 'any' : service};-;${address}`;
    },
    serviceFor(address: string): 'iMessage' | 'SMS' {
      return world.smsOnly.has(address) ? 'SMS' : 'iMessage';
    },
    /** A message stored in the Messages database. */
    store(fields: Partial<FakeMessage> & { chatGuid: string; text: string; isFromMe: boolean }): FakeMessage {
      const chat = chats.get(fields.chatGuid);
      const recipient = chat && chat.style === 45 ? chat.participants[0]! : null;
      const message: FakeMessage = {
        guid: randomUUID().toUpperCase(),
        error: 0,
        isDelivered: false,
        dateCreated: world.now(),
        dateDelivered: null,
        dateRead: null,
        itemType: 0,
        associatedMessageGuid: null,
        handle: recipient,
        attachments: [],
        ...fields,
      };
      messages.set(message.guid, message);
      return message;
    },
    /** The message as the REST API and webhooks show it (`chats` left out of updates). */
    view(message: FakeMessage, options: { chats?: boolean; attachments?: boolean; tempGuid?: string } = {}): Record<string, unknown> {
      const { chatGuid, attachments, ...fields } = message;
      const chat = chats.get(chatGuid);
      const view: Record<string, unknown> = {
        ...fields,
        attachments: options.attachments === false ? [] : attachments.map(({ bytes: _bytes, ...attachment }) => attachment),
        subject: null,
        groupTitle: null,
      };
      if (options.tempGuid !== undefined) view.tempGuid = options.tempGuid;
      if (options.chats !== false && chat) {
        view.chats = [{ guid: chat.guid, style: chat.style, displayName: chat.displayName, participants: chat.participants }];
        // The server drops a group's participants from a payload past 4000 bytes.
        if (JSON.stringify(view).length > 4000) view.chats = [{ guid: chat.guid, style: chat.style, displayName: chat.displayName }];
      }
      return view;
    },
    chatView(chat: FakeChat, messagesToo: FakeMessage[] = [], tempGuid?: string): Record<string, unknown> {
      return {
        originalROWID: 1,
        guid: chat.guid,
        style: chat.style,
        chatIdentifier: chat.guid.split(';')[2],
        displayName: chat.displayName,
        isArchived: false,
        participants: chat.participants,
        messages: messagesToo.map((message) => world.view(message, { chats: false, tempGuid })),
      };
    },
    /** POSTs `{type, data}` to every webhook that lists the type, without waiting, retrying or reading the answer. */
    push(type: string, data: unknown): void {
      for (const webhook of webhooks) {
        if (!webhook.events.includes(type) && !webhook.events.includes('*')) continue;
        const delivered = !world.dropping;
        pushed.push({ type, url: webhook.url, delivered, data });
        if (!delivered) continue;
        const post = fetch(webhook.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ type, data }),
        })
          .then((answer) => answer.text())
          .catch(() => undefined);
        pushes.add(post);
        void post.finally(() => pushes.delete(post));
      }
    },
    /** The two `new-message` events of an API send: the matcher's with the tempGuid, then the poller's without. */
    echo(message: FakeMessage, tempGuid?: string): void {
      if (tempGuid !== undefined) world.push('new-message', world.view(message, { tempGuid }));
      world.push('new-message', world.view(message));
    },
    deliver(guid: string): FakeMessage {
      const message = messages.get(guid)!;
      message.isDelivered = true;
      message.dateDelivered = world.now();
      world.push('updated-message', world.view(message, { chats: false }));
      return message;
    },
    read(guid: string): FakeMessage {
      const message = messages.get(guid)!;
      if (!message.isDelivered) world.deliver(guid);
      message.dateRead = world.now();
      world.push('updated-message', world.view(message, { chats: false }));
      return message;
    },
    failLater(guid: string, code: number, options: { event?: boolean } = {}): void {
      const message = messages.get(guid)!;
      message.error = code;
      if (options.event !== false) world.push('message-send-error', world.view(message));
    },
    /** Someone writes to the Mac's account. */
    receive(input: { from: string; text: string; chatGuid?: string; service?: 'iMessage' | 'SMS'; attachments?: FakeAttachment[] }) {
      const service = input.service ?? 'iMessage';
      const chatGuid = input.chatGuid ?? world.oneToOneGuid(input.from, service);
      world.ensureChat(chatGuid, [input.from], service);
      const message = world.store({
        chatGuid,
        text: input.text,
        isFromMe: false,
        handle: { address: input.from, service },
        attachments: input.attachments ?? [],
      });
      world.push('new-message', world.view(message));
      return message;
    },
    newWebhook(url: string, events: string[]): FakeWebhook {
      const webhook = { id: nextWebhookId++, url, events, created: world.now() };
      webhooks.push(webhook);
      return webhook;
    },
    /** Resolves once every webhook POST started so far has been answered or failed. */
    async settled(): Promise<void> {
      while (pushes.size > 0) await Promise.allSettled([...pushes]);
    },
  };
  return world;
}

export type FakeWorld = ReturnType<typeof createWorld>;
