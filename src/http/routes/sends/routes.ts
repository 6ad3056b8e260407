import { createRoute, type z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { ErrorCode } from '../../../domain/error-codes.ts';
import { AppError } from '../../../services/app-error.ts';
import { modifyGroup } from '../../../services/groups.ts';
import { requireLineAbility } from '../../../services/line-carriers.ts';
import { sendGroupMessageInBatch, sendMessageInBatch } from '../../../services/send-message.ts';
import type { AppDeps } from '../../app-deps.ts';
import type { AppEnv } from '../../env.ts';
import { API_SECURITY, apiErrors } from '../../openapi.ts';
import { answerOrRelay } from '../../provider-answers.ts';
import { apiRoute, createRouter } from '../../router.ts';
import { Message } from '../messages/schemas.ts';
import { IdempotencyKeyHeader, ModifyGroupBody, ModifyGroupResponse, SendGroupMessageBody, SendMessageBody } from './schemas.ts';

const SEND_ERRORS = {
  400: 'Validation error, malformed body or refused status_callback (4000); blacklisted number (4002)',
  409: 'Idempotency-Key reused with a different body (4090)',
  429: 'Rate limit exceeded (4001), see Retry-After',
};

const accepted = { description: 'Accepted and QUEUED', content: { 'application/json': { schema: Message } } };

const sendMessageRoute = createRoute({
  method: 'post',
  path: '/api/send-message',
  tags: ['Sending'],
  operationId: 'sendMessage',
  summary: 'Send a message to one person',
  description: 'JSON or a form. Status changes are POSTed to status_callback (see the message.status webhook).',
  security: API_SECURITY,
  parameters: [IdempotencyKeyHeader.parameter],
  request: {
    body: {
      content: {
        'application/json': { schema: SendMessageBody },
        'application/x-www-form-urlencoded': { schema: SendMessageBody },
      },
    },
  },
  responses: { 202: accepted, ...apiErrors('message', SEND_ERRORS) },
});

const sendGroupMessageRoute = createRoute({
  method: 'post',
  path: '/api/send-group-message',
  tags: ['Sending'],
  operationId: 'sendGroupMessage',
  summary: 'Send a message to a group (sapphire plan)',
  description: 'To new numbers (a group is found or created for that set of people) or to an existing group_id.',
  security: API_SECURITY,
  parameters: [IdempotencyKeyHeader.parameter],
  request: {
    body: { content: { 'application/json': { schema: SendGroupMessageBody } }, required: true },
  },
  responses: {
    202: accepted,
    ...apiErrors('message', { ...SEND_ERRORS, 403: 'Plan does not include groups (4030)', 404: 'Unknown group_id (4040)' }),
  },
});

const modifyGroupRoute = createRoute({
  method: 'post',
  path: '/api/modify-group',
  tags: ['Sending'],
  operationId: 'modifyGroup',
  summary: 'Add or remove a member of a group (sapphire plan)',
  description: 'The group keeps its group_id. A group that already had the new set of members stays reachable by its own group_id only.',
  security: API_SECURITY,
  request: { body: { content: { 'application/json': { schema: ModifyGroupBody } }, required: true } },
  responses: {
    200: { description: 'Modified', content: { 'application/json': { schema: ModifyGroupResponse } } },
    ...apiErrors('message', {
      400: "Validation error, unknown modify_type, adding a member or the account's own number, removing a non-member or the last one, over 25, or a line whose carrier cannot change groups (an SMS line; BlueBubbles without its Private API) (4000)",
      403: 'Plan does not include groups (4030)',
      404: 'Unknown group (4040)',
      501: 'modify_type rename or leave (5010): rename with POST /api/v2/groups/{group_id}/name',
    }),
  },
});

const FORM_CONTENT = /^(application\/x-www-form-urlencoded|multipart\/form-data)/i;

type SendMessageInput = z.output<typeof SendMessageBody>;

/**
 * send-message takes JSON or a form. Neither body is marked required (that would run both
 * validators on every request), so the validated one is picked by Content-Type here.
 */
function sendMessageBody(c: Context<AppEnv, string, { out: { json: SendMessageInput; form: SendMessageInput } }>) {
  const contentType = c.req.header('content-type');
  if (!contentType) {
    throw new AppError(ErrorCode.validation, 'Request body is required (application/json or application/x-www-form-urlencoded)');
  }
  return FORM_CONTENT.test(contentType) ? c.req.valid('form') : c.req.valid('json');
}

export function sendsRouter(deps: AppDeps) {
  const middleware = apiRoute(deps, 'message', 'none');
  const router = createRouter();

  // A send answers 202 even when an Idempotency-Key replays it: only accepted sends are remembered.
  router.openapi({ ...sendMessageRoute, middleware }, async (c) => {
    const idempotencyKey = IdempotencyKeyHeader.read(c);
    const input = sendMessageBody(c);
    if (input.statusCallback) deps.checkCallbackUrl(input.statusCallback);
    if (input.mediaUrl) await requireLineAbility(deps, c.get('account'), 'media', input.fromNumber);
    const sent = await sendMessageInBatch(deps, c.get('account'), input, idempotencyKey);
    return c.json(sent.body, 202);
  });

  router.openapi({ ...sendGroupMessageRoute, middleware }, async (c) => {
    const idempotencyKey = IdempotencyKeyHeader.read(c);
    const input = c.req.valid('json');
    if (input.statusCallback) deps.checkCallbackUrl(input.statusCallback);
    await requireLineAbility(deps, c.get('account'), 'groups', input.fromNumber);
    const sent = await sendGroupMessageInBatch(deps, c.get('account'), input, idempotencyKey);
    return c.json(sent.body, 202);
  });

  router.openapi({ ...modifyGroupRoute, middleware: apiRoute(deps, 'message') }, async (c) => {
    const body = c.req.valid('json');
    await requireLineAbility(deps, c.get('account'), 'groups', body.from_number);
    const result = await modifyGroup(deps, c.get('account'), {
      groupId: body.group_id,
      modifyType: body.modify_type,
      number: body.number,
      fromNumber: body.from_number,
    });
    return answerOrRelay(c, result);
  });

  return router;
}
