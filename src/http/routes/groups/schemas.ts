import { z } from '@hono/zod-openapi';
import { LineNumber } from '../fields.ts';
import { HttpUrl } from '../media/schemas.ts';

export const GroupIdParam = z.object({
  groupID: z
    .string()
    .min(1)
    .openapi({ param: { name: 'groupID', in: 'path' }, description: 'The group_id' }),
});

const FromNumber = LineNumber.nullable()
  .optional()
  .openapi({ type: ['string', 'null'], description: "One of the account's numbers; default: the group's line" });

export const RenameGroupBody = z
  .object({
    group_name: z
      .string({ message: 'group_name must be a string, or null to clear the name' })
      .max(256, { message: 'group_name must be at most 256 characters' })
      .nullable()
      .openapi({ description: 'The new name; null or "" clears it' }),
    from_number: FromNumber,
  })
  .openapi('GroupRenameRequest');

export const SetGroupPhotoBody = z
  .object({
    photo_url: HttpUrl('photo_url').nullable().openapi({ description: 'An image of at most 5 MB to fetch; null clears the photo' }),
    from_number: FromNumber,
  })
  .openapi('GroupSetPhotoRequest');

const GroupPhoto = z.object({ photo_guid: z.string(), url: z.string() }).openapi('GroupPhoto');

const Participant = z.object({
  participant_id: z.string(),
  type: z.literal('contact'),
  phone: z.string(),
  handle: z.string(),
  contact_id: z.string().nullable(),
  name: z.string().nullable(),
  seat_id: z.null(),
});

export const GroupRetrieveResponse = z
  .object({
    status: z.literal('OK'),
    data: z.object({
      group_id: z.string(),
      group_name: z.string().openapi({ description: '"" until the group is renamed' }),
      group_photo: GroupPhoto.nullable(),
      participant_numbers: z.array(z.string()),
      participants: z.array(Participant).openapi({ description: "The end users; the account's line is not listed" }),
      created_at: z.string(),
      updated_at: z.string(),
      latest_comm_at: z.string().nullable(),
      latest_message_id: z.string().nullable().openapi({ description: 'Handle of the newest message' }),
      worker_group_id: z.null(),
    }),
  })
  .openapi('GroupRetrieveResponse');

export const GroupRenameResponse = z
  .object({ status: z.literal('OK'), data: z.object({ from_number: z.string().nullable(), group_id: z.string(), group_name: z.string() }) })
  .openapi('GroupRenameResponse');

export const GroupSetPhotoResponse = z
  .object({
    status: z.literal('OK'),
    data: z.object({ from_number: z.string().nullable(), group_id: z.string(), group_photo: GroupPhoto.nullable() }),
  })
  .openapi('GroupSetPhotoResponse');
