import { type BlueBubblesClient, BlueBubblesError } from './client.ts';
import { BbAvailability, BbChat, BbMessage } from './schemas.ts';

export type BbService = 'iMessage' | 'SMS';

/** Where a one-to-one message goes: the service chosen and the chat to send in, when one exists. */
export type BbRoute = { service: BbService; chatGuid: string | undefined };

/** Apple's answer changes: a yes holds for days, a no is asked again after minutes (carriers.md Part C). */
const AVAILABLE_FOR_MS = 3 * 24 * 60 * 60 * 1000;
const UNAVAILABLE_FOR_MS = 10 * 60 * 1000;

/** The prefixes one address's one-to-one chat may have; macOS 26 names them all `any`. */
const PREFIXES = ['iMessage', 'any', 'SMS'] as const;

export function oneToOneGuid(prefix: string, address: string): string {
  return `${prefix};-;${address}`;
}

/**
 * Finds people's chats on the Mac and whether they have iMessage: the Private API's availability
 * check when the helper is connected, else the history of their chat.
 */
export function createChatDirectory(client: BlueBubblesClient, options: { privateApi: () => boolean; now?: () => number }) {
  const now = options.now ?? Date.now;
  const availability = new Map<string, { available: boolean; until: number }>();

  async function getChat(guid: string): Promise<BbChat | undefined> {
    try {
      return BbChat.parse(await client.call('GET', `/chat/${encodeURIComponent(guid)}`, { query: { with: 'participants' } }));
    } catch (error) {
      if (error instanceof BlueBubblesError && error.status === 404) return undefined;
      throw error;
    }
  }

  /** The address's one-to-one chats that exist, by prefix. */
  async function chatsOf(address: string): Promise<Map<string, BbChat>> {
    const found = new Map<string, BbChat>();
    for (const prefix of PREFIXES) {
      const chat = await getChat(oneToOneGuid(prefix, address));
      if (chat) found.set(prefix, chat);
    }
    return found;
  }

  /** The service the chat's latest messages went by; iMessage when it says nothing. */
  async function serviceFromHistory(chatGuid: string): Promise<BbService> {
    const recent = await client.call('POST', '/message/query', { json: { chatGuid, limit: 5, sort: 'DESC' } });
    const services = (Array.isArray(recent) ? recent : []).map((item) => BbMessage.safeParse(item).data?.handle?.service);
    return services.includes('iMessage') || !services.includes('SMS') ? 'iMessage' : 'SMS';
  }

  async function askApple(address: string): Promise<boolean | undefined> {
    const cached = availability.get(address);
    if (cached && cached.until > now()) return cached.available;
    if (!options.privateApi()) return undefined;
    try {
      const { available } = BbAvailability.parse(await client.call('GET', '/handle/availability/imessage', { query: { address } }));
      availability.set(address, { available, until: now() + (available ? AVAILABLE_FOR_MS : UNAVAILABLE_FOR_MS) });
      return available;
    } catch (error) {
      // "Failed to determine iMessage availability!": the history decides instead.
      if (error instanceof BlueBubblesError) return undefined;
      throw error;
    }
  }

  /** iMessage or SMS for this address, and the chat to send in (none yet: `chat/new`). */
  async function route(address: string): Promise<BbRoute> {
    const chats = await chatsOf(address);
    const apple = await askApple(address);
    let service: BbService;
    if (apple !== undefined) service = apple ? 'iMessage' : 'SMS';
    else if (chats.has('iMessage')) service = 'iMessage';
    else if (chats.has('SMS')) service = 'SMS';
    else if (chats.has('any')) service = await serviceFromHistory(oneToOneGuid('any', address));
    else service = 'iMessage';
    const chat = chats.get(service) ?? chats.get('any');
    return { service, chatGuid: chat?.guid };
  }

  return { route, getChat, availability: askApple };
}

export type ChatDirectory = ReturnType<typeof createChatDirectory>;
