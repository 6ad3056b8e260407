import { Blob } from 'node:buffer';
import { FormData } from 'undici';
import { ErrorCode } from '../../domain/error-codes.ts';
import { extensionOf } from '../../domain/media-objects.ts';
import { AppError } from '../../services/app-error.ts';
import type { CarrierGroupEdit, CarrierLineActions } from '../../services/carrier-directory.ts';
import type { ChatDirectory } from './chats.ts';
import { type BlueBubblesClient, BlueBubblesError, BlueBubblesUnreachable } from './client.ts';
import { BbServerInfo } from './schemas.ts';

export type PrivateApiContext = {
  client: BlueBubblesClient;
  chats: ChatDirectory;
  /** What the server said last in server/info (start-up and each read-back pass). */
  info: () => BbServerInfo | undefined;
  remember: (info: BbServerInfo) => void;
  /** Removes secrets from a text bound for an answer. */
  describe: (error: unknown) => string;
};

const ENABLE =
  "turn on Private API in the BlueBubbles app's settings (it needs the helper installed and SIP partly disabled, see docs/carriers.md) until the app shows the helper connected";

/** Whether the server can make Private API calls: enabled, and its helper connected. */
export function privateApiReady(info: BbServerInfo | undefined): boolean {
  return Boolean(info?.private_api && info.helper_connected);
}

function privateApiOff(what: string, notEnabled: boolean): AppError {
  const state = notEnabled ? 'is not enabled' : 'is enabled but its helper is not connected';
  return new AppError(ErrorCode.validation, `${what} on a BlueBubbles line needs its Private API, which ${state} on the server: ${ENABLE}`);
}

/** Servers up to 1.9.9 start typing on the stop route (carriers.md A.6): stopping is left to the next message. */
function stopRouteStops(version: string | null | undefined): boolean {
  const [major = 0, minor = 0, patch = 0] = (version ?? '').split('.').map((part) => Number.parseInt(part, 10) || 0);
  return major * 1e6 + minor * 1e3 + patch > 1_009_009;
}

function groupPath(chatId: string, tail = ''): string {
  return `/chat/${encodeURIComponent(chatId)}${tail}`;
}

/**
 * Group changes and typing indicators on the BlueBubbles line, which the server makes only through
 * its Private API. Each one is refused (400) without a request when the server says the Private
 * API is off, and a failure answers an AppError: the caller records nothing.
 */
export function createPrivateApiActions(ctx: PrivateApiContext): CarrierLineActions {
  const { client } = ctx;

  /** Asks server/info again when the last answer said off: the user may have just turned it on. */
  async function requirePrivateApi(what: string): Promise<void> {
    if (privateApiReady(ctx.info())) return;
    try {
      ctx.remember(BbServerInfo.parse(await client.call('GET', '/server/info')));
    } catch (error) {
      throw failure(what, error);
    }
    const info = ctx.info();
    if (!privateApiReady(info)) throw privateApiOff(what, !info?.private_api);
  }

  /** What the caller is told when BlueBubbles did not make the change. */
  function failure(what: string, error: unknown): AppError {
    if (error instanceof AppError) return error;
    if (error instanceof BlueBubblesError) {
      const said = error.detail ?? error.summary;
      if (/Private API/i.test(said)) {
        // The server knows better than our last server/info: the next call asks it again.
        ctx.remember({ ...ctx.info(), private_api: !/not enabled/i.test(said), helper_connected: false });
        return privateApiOff(what, /not enabled/i.test(said));
      }
      if (error.status < 500 || /not a group/i.test(said))
        return new AppError(ErrorCode.validation, `${what}: BlueBubbles refused it (${said}); nothing was changed`);
    }
    const retry = error instanceof BlueBubblesUnreachable ? { retryAfterSeconds: 30 } : {};
    return new AppError(
      ErrorCode.overloaded,
      `${what} failed at BlueBubbles: ${ctx.describe(error)}; nothing was changed, try again`,
      retry,
    );
  }

  async function made(what: string, call: () => Promise<unknown>): Promise<void> {
    await requirePrivateApi(what);
    try {
      await call();
    } catch (error) {
      throw failure(what, error);
    }
  }

  function change(chatId: string, edit: CarrierGroupEdit): Promise<unknown> {
    switch (edit.kind) {
      case 'add_recipient':
        return client.call('POST', groupPath(chatId, '/participant/add'), { json: { address: edit.number }, slow: true });
      case 'remove_recipient':
        return client.call('POST', groupPath(chatId, '/participant/remove'), { json: { address: edit.number }, slow: true });
      case 'rename':
        return client.call('PUT', groupPath(chatId), { json: { displayName: edit.name }, slow: true });
      case 'photo': {
        if (edit.photo === null) return client.call('DELETE', groupPath(chatId, '/icon'), { slow: true });
        const form = new FormData();
        form.set('icon', new Blob([edit.photo.bytes], { type: edit.photo.contentType }), `icon.${extensionOf(edit.photo.contentType)}`);
        return client.call('POST', groupPath(chatId, '/icon'), { form, slow: true });
      }
    }
  }

  const GROUP_WORDS: Record<CarrierGroupEdit['kind'], string> = {
    add_recipient: 'Adding a group member',
    remove_recipient: 'Removing a group member',
    rename: 'Renaming a group',
    photo: "Changing a group's photo",
  };

  return {
    async editGroup(chatId, edit) {
      const what = GROUP_WORDS[edit.kind];
      // BlueBubbles ignores an empty displayName: Messages has no way to take a name off.
      if (edit.kind === 'rename' && edit.name === '')
        throw new AppError(ErrorCode.validation, 'BlueBubbles cannot clear a group name: give group_name a new name instead');
      await made(what, () => change(chatId, edit));
    },
    async typing({ number, state }) {
      const what = 'A typing indicator';
      await made(what, async () => {
        const { service, chatGuid } = await ctx.chats.route(number);
        if (service === 'SMS') throw new AppError(ErrorCode.validation, `${number} is reached by SMS, which has no typing indicators`);
        if (chatGuid === undefined)
          throw new AppError(
            ErrorCode.validation,
            `There is no conversation with ${number} on the Mac yet: typing indicators go into one, so send a message first`,
          );
        if (state === 'start') await client.call('POST', groupPath(chatGuid, '/typing'));
        else if (stopRouteStops(ctx.info()?.server_version)) await client.call('DELETE', groupPath(chatGuid, '/typing'));
      });
    },
  };
}
