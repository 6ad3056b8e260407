/**
 * The fake BlueBubbles server's Private API chat routes (carriers.md A.4, A.6): group members,
 * name and icon, typing. Each answers as 1.9.9 does, misbehaviour included.
 */
import type { Context, Hono } from 'hono';
import type { FakeChat, FakeWorld } from './world.ts';

export type ChatRouteContext = {
  world: FakeWorld;
  settings: { serverVersion: string };
  control: { changeFault: boolean };
  fail: (c: Context, status: number, message: string, type: string, detail?: string) => Response;
  ok: (c: Context, data: unknown, message?: string) => Response;
  /** The Private API middleware's refusal, when the switch is off. */
  helperMissing: (c: Context) => Response | undefined;
};

export function addChatRoutes(app: Hono, { world, settings, control, fail, ok, helperMissing }: ChatRouteContext) {
  /** Every group change that reached a chat (Private API on), as received. */
  const changes: { chatGuid: string; action: string; body: Record<string, any> }[] = [];
  /**
   * A Private API group change as 1.9.9 makes it: the middleware's refusal without the helper, a
   * one-to-one chat refused by an unhandled error, and a change Messages never shows (a member
   * added twice, an injected fault) failing after the server's wait.
   */
  const groupChange =
    (action: string, change: (chat: FakeChat, body: Record<string, any>) => Promise<boolean> | boolean) => async (c: Context) => {
      const missing = helperMissing(c);
      if (missing) return missing;
      const type = c.req.header('content-type') ?? '';
      const body: Record<string, any> = type.startsWith('multipart/')
        ? await c.req.parseBody()
        : type.includes('json')
          ? await c.req.json()
          : {};
      if (action.endsWith('participant') && typeof body.address !== 'string')
        return fail(c, 400, 'Validation Error', 'Validation Error', 'The address field is required.');
      if (action === 'icon' && !(body.icon instanceof File && body.icon.size > 0))
        return fail(
          c,
          400,
          "You've made a bad request! Please check your request params & body",
          'Validation Error',
          'Icon not provided or was empty!',
        );
      const chat = world.chat(c.req.param('guid')!);
      if (!chat) return fail(c, 404, 'Chat does not exist!', 'Database Error');
      changes.push({ chatGuid: chat.guid, action, body });
      if (chat.style !== 43) return fail(c, 500, 'An unhandled error has occurred!', 'Server Error', 'Chat is not a group chat!');
      if (control.changeFault || !(await change(chat, body))) {
        control.changeFault = false;
        return fail(
          c,
          500,
          'An unhandled error has occurred!',
          'Server Error',
          `Failed to ${action}! Operation took longer than 30 seconds!`,
        );
      }
      return ok(c, world.chatView(chat));
    };
  const member = (chat: FakeChat, address: string) => chat.participants.some((participant) => participant.address === address);
  const addParticipant = groupChange('add participant', (chat, body) => {
    if (member(chat, body.address)) return false;
    chat.participants.push({ address: body.address, service: 'iMessage' });
    return true;
  });
  const removeParticipant = groupChange('remove participant', (chat, body) => {
    if (!member(chat, body.address)) return false;
    chat.participants = chat.participants.filter((participant) => participant.address !== body.address);
    return true;
  });
  app.post('/api/v1/chat/:guid/participant', addParticipant);
  app.post('/api/v1/chat/:guid/participant/add', addParticipant);
  app.delete('/api/v1/chat/:guid/participant', removeParticipant);
  app.post('/api/v1/chat/:guid/participant/remove', removeParticipant);
  app.put(
    '/api/v1/chat/:guid',
    groupChange('rename', (chat, body) => {
      // An empty name passes the validator and changes nothing ("Chat not updated!").
      if (body.displayName) chat.displayName = body.displayName;
      return true;
    }),
  );
  app.post(
    '/api/v1/chat/:guid/icon',
    groupChange('icon', async (chat, body) => {
      chat.iconBytes = Buffer.from(await (body.icon as File).arrayBuffer());
      return true;
    }),
  );
  app.delete(
    '/api/v1/chat/:guid/icon',
    groupChange('remove icon', (chat) => {
      chat.iconBytes = undefined;
      return true;
    }),
  );
  const privateOnly = (what: string) => (c: Context) => {
    const missing = helperMissing(c);
    if (missing) return missing;
    if (!world.chat(c.req.param('guid')!)) return fail(c, 404, 'Chat does not exist!', 'Database Error');
    typing.push({ chatGuid: c.req.param('guid')!, what });
    return ok(c, null);
  };
  const typing: { chatGuid: string; what: string }[] = [];
  app.post('/api/v1/chat/:guid/typing', privateOnly('typing'));
  // 1.9.9's stop handler calls start (carriers.md A.6); a later server is taken to have fixed it.
  app.delete('/api/v1/chat/:guid/typing', (c) => privateOnly(settings.serverVersion === '1.9.9' ? 'typing' : 'stop-typing')(c));
  app.post('/api/v1/chat/:guid/read', privateOnly('read'));
  return { changes, typing };
}
