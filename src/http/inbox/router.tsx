import { type Context, Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import { z } from 'zod';
import type { TransportKind } from '../../domain/carriers.ts';
import { ErrorCode } from '../../domain/error-codes.ts';
import { AppError } from '../../services/app-error.ts';
import { listDeliveries, replayDelivery } from '../../services/callback-deliveries.ts';
import { accountCarrierProblems } from '../../services/carrier-problems.ts';
import { type ConversationKind, listConversations, readConversation, replyAsEndUser } from '../../services/inbox.ts';
import { closeInboxSession } from '../../services/inbox-sessions.ts';
import { SandboxInbound } from '../../services/message-input.ts';
import type { NotifierHub } from '../../services/notifier.ts';
import type { AppEnv } from '../env.ts';
import { createErrorHandler } from '../errors.ts';
import { limitBody } from '../router.ts';
import { CLIENT_SCRIPT } from './assets/client.ts';
import { STYLESHEET } from './assets/style.ts';
import { createLiveStreams } from './live.ts';
import { DELIVERY_NOTICES, REPLY_ERRORS, replayError, replyFormError, replyServiceError, sentenceFor, withCode } from './notices.ts';
import { ConversationPage } from './pages/conversation.tsx';
import { ConversationsPage } from './pages/conversations.tsx';
import { DeliveriesPage } from './pages/deliveries.tsx';
import { conversationPath } from './pages/format.ts';
import { Layout, type Section } from './pages/layout.tsx';
import { LoginPage } from './pages/login.tsx';
import { clearSessionCookie, requireSession, sameOriginPost, sessionToken } from './session.ts';
import { type SignInDeps, signIn } from './sign-in.tsx';

export type InboxDeps = SignInDeps & { notify: NotifierHub; transportName: TransportKind };

/** The deliveries page shows the newest this many. */
const DELIVERIES_SHOWN = 100;

const ReplyForm = z.object({ from: z.string(), content: z.string() });

const KINDS: Record<string, ConversationKind> = { contacts: 'contact', groups: 'group' };

/** Pages are the account's own data: never cached, never framed, scripts and styles from here only. */
const pageHeaders = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  c.header(
    'Content-Security-Policy',
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Referrer-Policy', 'same-origin');
  if (!c.res.headers.has('Cache-Control')) c.header('Cache-Control', 'no-store');
});

function asset(body: string, type: string) {
  return (c: Context) => c.body(body, 200, { 'Content-Type': `${type}; charset=utf-8`, 'Cache-Control': 'no-cache' });
}

/** The web inbox: HTML rendered here, one small script for live updates, forms that work without it. */
export function inboxRouter(deps: InboxDeps) {
  const router = new Hono<AppEnv>();
  const sandbox = deps.transportName === 'sandbox';
  const signedInPage = requireSession(deps, 'login');
  const handleApiError = createErrorHandler(deps.log);
  const signedIn = (c: Context<AppEnv>, section?: Section) => ({ email: c.get('account').email, sandbox, section });

  // '/inbox/*' covers '/inbox' itself too.
  router.use('/inbox/*', pageHeaders, sameOriginPost);
  router.post('/inbox/*', limitBody);

  router.get('/inbox/assets/inbox.css', asset(STYLESHEET, 'text/css'));
  router.get('/inbox/assets/inbox.js', asset(CLIENT_SCRIPT, 'text/javascript'));

  router.get('/inbox/login', (c) => c.html(<LoginPage keyId="" />));
  router.post('/inbox/login', signIn(deps));
  router.post('/inbox/logout', async (c) => {
    const token = sessionToken(c);
    if (token !== undefined) await closeInboxSession(deps, token);
    clearSessionCookie(c);
    return c.redirect('/inbox/login', 303);
  });

  router.get('/inbox', signedInPage, async (c) =>
    c.html(
      <ConversationsPage
        signedIn={signedIn(c, 'conversations')}
        conversations={await listConversations(deps, c.get('account'))}
        problems={await accountCarrierProblems(deps, c.get('account').id)}
        timeZone={deps.displayTimeZone}
      />,
    ),
  );

  router.get('/inbox/:kind{contacts|groups}/:id', signedInPage, async (c) => {
    const kind = KINDS[c.req.param('kind')]!;
    const conversation = await readConversation(deps, c.get('account'), kind, c.req.param('id'));
    return c.html(
      <ConversationPage
        signedIn={signedIn(c, 'conversations')}
        conversation={conversation}
        path={conversationPath(kind, conversation.id)}
        timeZone={deps.displayTimeZone}
        error={sentenceFor(REPLY_ERRORS, c.req.query('error'))}
      />,
    );
  });

  if (sandbox) {
    router.post('/inbox/:kind{contacts|groups}/:id/reply', signedInPage, async (c) => {
      const kind = KINDS[c.req.param('kind')]!;
      const back = conversationPath(kind, c.req.param('id'));
      const form = ReplyForm.safeParse(await c.req.parseBody());
      const reply = SandboxInbound.safeParse({ number: form.data?.from, content: form.data?.content });
      if (!reply.success) return c.redirect(withCode(back, 'error', replyFormError(reply.error.issues)), 303);
      try {
        await replyAsEndUser(deps, c.get('account'), kind, c.req.param('id'), reply.data);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        return c.redirect(withCode(back, 'error', replyServiceError(error)), 303);
      }
      return c.redirect(back, 303);
    });
  }

  router.get('/inbox/deliveries', signedInPage, async (c) =>
    c.html(
      <DeliveriesPage
        signedIn={signedIn(c, 'deliveries')}
        deliveries={await listDeliveries(deps, c.get('account'), { limit: DELIVERIES_SHOWN, offset: 0 })}
        timeZone={deps.displayTimeZone}
        notice={sentenceFor(DELIVERY_NOTICES, c.req.query('notice'))}
      />,
    ),
  );
  router.post('/inbox/deliveries/:id/replay', signedInPage, async (c) => {
    const id = c.req.param('id');
    try {
      await replayDelivery(deps, id, c.get('account'));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return c.redirect(withCode('/inbox/deliveries', 'notice', replayError(error)), 303);
    }
    return c.redirect(withCode('/inbox/deliveries', 'notice', 'replayed'), 303);
  });

  router.get('/inbox/events', requireSession(deps, 'unauthorized'), createLiveStreams(deps.notify));

  router.onError((error, c) => {
    if (error instanceof AppError && error.code === ErrorCode.notFound) {
      return c.html(
        <Layout title="Not found">
          <div class="card">
            <h1>Not found</h1>
            <p>
              {error.message}. <a href="/inbox">Back to the conversations</a>
            </p>
          </div>
        </Layout>,
        404,
      );
    }
    return handleApiError(error, c);
  });

  return router;
}
