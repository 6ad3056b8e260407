import { createRoute } from '@hono/zod-openapi';
import { createMiddleware } from 'hono/factory';
import { renameGroup, requireAccountGroup, retrieveGroup, setGroupPhoto } from '../../../services/group-settings.ts';
import type { AppDeps } from '../../app-deps.ts';
import type { AppEnv } from '../../env.ts';
import { API_SECURITY, apiErrors } from '../../openapi.ts';
import { answerOrRelay } from '../../provider-answers.ts';
import { apiRoute, createRouter } from '../../router.ts';
import { mediaOrigin } from '../media/routes.ts';
import {
  GroupIdParam,
  GroupRenameResponse,
  GroupRetrieveResponse,
  GroupSetPhotoResponse,
  RenameGroupBody,
  SetGroupPhotoBody,
} from './schemas.ts';

const GROUP_ERRORS = { 403: 'Plan does not include groups (4030)', 404: 'Unknown group (4040)' };

const retrieveGroupRoute = createRoute({
  method: 'get',
  path: '/api/v2/groups/{groupID}',
  tags: ['Groups'],
  operationId: 'retrieveGroup',
  summary: 'A group: name, photo, participants, newest message (sapphire plan)',
  security: API_SECURITY,
  request: { params: GroupIdParam },
  responses: {
    200: { description: 'The group', content: { 'application/json': { schema: GroupRetrieveResponse } } },
    ...apiErrors('message', GROUP_ERRORS, { body: false }),
  },
});

const renameGroupRoute = createRoute({
  method: 'post',
  path: '/api/v2/groups/{groupID}/name',
  tags: ['Groups'],
  operationId: 'renameGroup',
  summary: 'Rename a group (sapphire plan)',
  description: 'Later receive webhooks and messages carry the name as group_display_name.',
  security: API_SECURITY,
  request: { params: GroupIdParam, body: { content: { 'application/json': { schema: RenameGroupBody } }, required: true } },
  responses: {
    200: { description: 'Renamed', content: { 'application/json': { schema: GroupRenameResponse } } },
    ...apiErrors('message', {
      400: "Validation error, a from_number that is not the account's, or a line whose carrier cannot rename groups (an SMS line; BlueBubbles without its Private API) (4000)",
      ...GROUP_ERRORS,
    }),
  },
});

const setGroupPhotoRoute = createRoute({
  method: 'post',
  path: '/api/v2/groups/{groupID}/photo',
  tags: ['Groups'],
  operationId: 'setGroupPhoto',
  summary: 'Set or clear the photo of a group (sapphire plan)',
  description: 'The image is fetched like an upload (guarded client, at most 5 MB, images only) and served by textrelay.',
  security: API_SECURITY,
  request: { params: GroupIdParam, body: { content: { 'application/json': { schema: SetGroupPhotoBody } }, required: true } },
  responses: {
    200: { description: 'Photo set or cleared', content: { 'application/json': { schema: GroupSetPhotoResponse } } },
    ...apiErrors('message', {
      400: 'Validation error, the image could not be fetched, is too large or not an image, or a line whose carrier cannot set photos (an SMS line; BlueBubbles without its Private API) (4000)',
      ...GROUP_ERRORS,
      403: `${GROUP_ERRORS[403]}, or the image would pass the account's media quota (4031, TEXTRELAY_MEDIA_QUOTA_MB)`,
    }),
  },
});

export function groupsRouter(deps: AppDeps) {
  const groupFirst = createMiddleware<AppEnv>(async (c, next) => {
    await requireAccountGroup(deps, c.get('account'), c.req.param('groupID') ?? '');
    await next();
  });
  const middleware = [...apiRoute(deps, 'message'), groupFirst];
  const router = createRouter();
  router.openapi({ ...retrieveGroupRoute, middleware }, async (c) =>
    c.json(await retrieveGroup(deps, c.get('account'), c.req.valid('param').groupID, mediaOrigin(c, deps)), 200),
  );
  router.openapi({ ...renameGroupRoute, middleware }, async (c) => {
    const body = c.req.valid('json');
    const result = await renameGroup(deps, c.get('account'), {
      groupId: c.req.valid('param').groupID,
      groupName: body.group_name,
      fromNumber: body.from_number,
    });
    return answerOrRelay(c, result);
  });
  router.openapi({ ...setGroupPhotoRoute, middleware }, async (c) => {
    const body = c.req.valid('json');
    const result = await setGroupPhoto(deps, c.get('account'), {
      groupId: c.req.valid('param').groupID,
      photoUrl: body.photo_url,
      fromNumber: body.from_number,
      origin: mediaOrigin(c, deps),
    });
    return answerOrRelay(c, result);
  });
  return router;
}
