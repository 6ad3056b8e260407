/**
 * What a valid request to each route looks like, field by field. The fuzzer builds valid inputs
 * from these, then spoils one field at a time, so generated requests get past the first
 * validation step and reach the rules behind it. Keyed by `METHOD path` as the route table spells
 * it; a route missing here is fuzzed by the generic strategy only if it documents no body or query
 * (see coverage.test.ts).
 */
import fc from 'fast-check';
import { ACCOUNT_EVENT_TYPES } from '../../src/domain/account-events.ts';
import { SEND_STYLES } from '../helpers/fixtures.ts';
import { FIXTURE_MEDIA_HOST, type Owned } from '../helpers/populated-app.ts';

export type InputSpec = {
  /** Valid values of each field, one at a time. */
  fields: Record<string, fc.Arbitrary<unknown>>;
  /** Whole valid inputs, cross-field rules included. */
  valid: fc.Arbitrary<Record<string, unknown>>;
};

export type RouteInputs = {
  body?: InputSpec;
  query?: InputSpec;
  /** Raw (unencoded) values of path parameters. */
  params?: Record<string, fc.Arbitrary<string>>;
};

/** A spec whose valid inputs are records of `fields` with `required` always present. */
function recordSpec(fields: Record<string, fc.Arbitrary<unknown>>, required: string[]): InputSpec {
  return { fields, valid: fc.record(fields, { requiredKeys: required }) as fc.Arbitrary<Record<string, unknown>> };
}

/** Numbers as clients write them: E.164, with separators, and fresh ones nobody has messaged. */
function phone(known: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...known),
    fc.constantFrom(...known).map((e164) => `${e164.slice(0, 2)} (${e164.slice(2, 5)}) ${e164.slice(5, 8)}-${e164.slice(8)}`),
    fc.integer({ min: 0, max: 9_999 }).map((n) => `+1212456${String(n).padStart(4, '0')}`),
  );
}

const content = fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.constant('x'.repeat(18_995)));
const mediaUrl = fc.constantFrom('https://cdn.example.com/a.jpg', 'http://cdn.example.com/path/b.png?size=2', '');
const callbackUrl = fc.constantFrom('https://hooks.example.com/status', 'http://127.0.0.1:9/cb', '');
const sendStyle = fc.constantFrom(...SEND_STYLES, '');
const limit = fc.oneof(fc.integer({ min: 1, max: 2_000 }).map(String), fc.constant('50'));
const offset = fc.integer({ min: 0, max: 10 }).map(String);
const flag = fc.constantFrom('true', 'false', '1', '0');
// Not fc.webUrl(): it costs more than the request it goes into, and its odd corners are the fuzzer's job.
const receiverUrl = fc.stringMatching(/^https?:\/\/[a-z]{1,10}\.example\.com(:[1-9][0-9]{1,3})?\/[a-z0-9]{0,8}$/);

/** Served by the populated app's fixture fetcher; a closed local port fails at once (400), as an unreachable origin does. */
const fixtureMediaUrl = fc.constantFrom(
  `https://${FIXTURE_MEDIA_HOST}/a.png`,
  `http://${FIXTURE_MEDIA_HOST}/b.jpg`,
  'http://127.0.0.1:9/a.png',
);

const webhookSecret = fc.constantFrom('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'plain-secret');

/** An /api/account/webhooks entry: a bare URL or an object, with a secret and lines or not. */
function accountWebhookEntry(owned: Owned): fc.Arbitrary<unknown> {
  const url = fc.oneof(fc.constantFrom(...owned.urls), receiverUrl);
  return fc.oneof(
    url,
    fc
      .record(
        { url, secret: webhookSecret, sendblue_numbers: fc.array(fc.constantFrom(...owned.lines), { maxLength: 2 }) },
        { requiredKeys: ['url'] },
      )
      .map((entry) => ({ ...entry })),
  );
}

function messageFields(owned: Owned) {
  return {
    content,
    media_url: mediaUrl,
    send_style: sendStyle,
    status_callback: callbackUrl,
    statusCallback: callbackUrl,
    from_number: fc.constantFrom(...owned.lines, ''),
    // Spread: the mutations print a field's value, which a record without a prototype cannot do.
    reply_to: fc
      .record(
        { message_handle: fc.constantFrom(...owned.handles), part_index: fc.integer({ min: 0, max: 3 }) },
        { requiredKeys: ['message_handle'] },
      )
      .map((replyTo) => ({ ...replyTo })),
    seat_id: fc.string({ maxLength: 20 }),
  };
}

/** The SDK's contacts calls (/api/v2/contacts): both spellings of each field, numbers in the path with or without `+`. */
function sdkContactInputs(): Record<string, (owned: Owned) => RouteInputs> {
  const name = fc.string({ maxLength: 20 });
  const tags = fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 });
  // Plain keys on a plain object: the fuzzer turns field values into text, which a `toString` key or a null prototype would break.
  const variables = fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/), fc.string({ maxLength: 10 }), {
    maxKeys: 3,
    noNullPrototype: true,
  });
  const fields = (owned: Owned) => ({
    first_name: name,
    firstName: name,
    last_name: name,
    lastName: name,
    company_name: name,
    companyName: name,
    assigned_to_email: fc.constantFrom('sales@example.com', ''),
    assignedToEmail: fc.constantFrom('sales@example.com', ''),
    sendblue_number: fc.constantFrom(...owned.lines),
    sendblueNumber: fc.constantFrom(...owned.lines),
    tags,
    custom_variables: variables,
  });
  const pathPhone = (owned: Owned) => ({
    phoneNumber: fc.oneof(
      phone(owned.people),
      fc.constantFrom(...owned.people).map((e164) => e164.slice(1)),
    ),
  });
  return {
    'POST /api/v2/contacts': (owned) => {
      // One number, and no line (the auth matrix replays these bodies with another account's
      // credentials): the first creation succeeds, every repeat is a 409, so a probe and its twin answer alike.
      const { sendblue_number, sendblueNumber, ...rest } = fields(owned);
      const valid = { number: fc.constant(owned.people[0]!), ...rest, update_if_exists: fc.boolean() };
      return {
        body: {
          fields: { ...valid, sendblue_number, sendblueNumber },
          valid: fc.record(valid, { requiredKeys: ['number'] }) as fc.Arbitrary<Record<string, unknown>>,
        },
      };
    },
    'GET /api/v2/contacts': (owned) => ({
      query: recordSpec(
        {
          limit,
          offset: fc.integer({ min: 0, max: 20_000 }).map(String),
          order_by: fc.constantFrom('created_at', 'updated_at', 'phone', 'first_name', 'last_name'),
          order_direction: fc.constantFrom('asc', 'desc'),
          phone_number: phone(owned.people),
          cid: fc.constantFrom(...owned.cids),
          created_at_gte: fc.constantFrom('2026-11-23T00:00:00Z', '1970-01-01T00:00:00.000Z', '2999-12-31'),
        },
        [],
      ),
    }),
    'DELETE /api/v2/contacts': (owned) => ({
      body: recordSpec(
        { contact_ids: fc.array(fc.oneof(phone(owned.people), fc.constantFrom(...owned.cids)), { minLength: 1, maxLength: 3 }) },
        ['contact_ids'],
      ),
    }),
    'POST /api/v2/contacts/bulk': () => ({
      body: recordSpec(
        {
          contacts: fc.uniqueArray(
            fc.record(
              {
                phone: fc.integer({ min: 0, max: 9_999 }).map((n) => `+1212456${String(n).padStart(4, '0')}`),
                first_name: name,
                last_name: name,
                company_name: name,
                tags,
                custom_variables: variables,
              },
              { requiredKeys: ['phone'], noNullPrototype: true },
            ),
            { minLength: 1, maxLength: 3, selector: (item) => item.phone },
          ),
        },
        ['contacts'],
      ),
    }),
    'POST /api/v2/contacts/opt-out': (owned) => ({
      body: recordSpec({ number: phone(owned.people), opted_out: fc.boolean() }, ['number']),
    }),
    'GET /api/v2/contacts/:phoneNumber': (owned) => ({ params: pathPhone(owned) }),
    'DELETE /api/v2/contacts/:phoneNumber': (owned) => ({ params: pathPhone(owned) }),
    'PUT /api/v2/contacts/:phoneNumber': (owned) => ({
      params: pathPhone(owned),
      body: recordSpec({ ...fields(owned), opt_out: fc.boolean(), optOut: fc.boolean() }, []),
    }),
  };
}

const isoDate = fc.constantFrom('2026-11-23T00:00:00Z', '2026-11-23T09:30:00.000Z', '1970-01-01T00:00:00Z', '2999-12-31T23:59:59+02:00');

export const ROUTE_INPUTS: Record<string, (owned: Owned) => RouteInputs> = {
  'POST /api/send-message': (owned) => ({
    body: recordSpec({ number: phone(owned.people), ...messageFields(owned) }, ['number', 'content']),
  }),

  'POST /api/send-group-message': (owned) => {
    const fields = {
      numbers: fc.uniqueArray(phone(owned.people), { minLength: 2, maxLength: 5 }),
      group_id: fc.constantFrom(...owned.groupIds),
      ...messageFields(owned),
    };
    const { numbers, group_id, ...rest } = fields;
    return {
      body: {
        fields,
        valid: fc.oneof(
          fc.record({ numbers, ...rest }, { requiredKeys: ['numbers', 'content'] }),
          fc.record({ group_id, ...rest }, { requiredKeys: ['group_id', 'content'] }),
        ) as fc.Arbitrary<Record<string, unknown>>,
      },
    };
  },

  'POST /api/modify-group': (owned) => ({
    body: recordSpec(
      {
        group_id: fc.constantFrom(...owned.groupIds),
        // rename and leave answer 501 by design: valid inputs are the two changes of membership.
        modify_type: fc.constantFrom('add_recipient', 'remove_recipient'),
        number: phone(owned.people),
        from_number: fc.constantFrom(...owned.lines),
      },
      ['group_id', 'modify_type', 'number'],
    ),
  }),

  'POST /api/send-typing-indicator': (owned) => ({
    body: recordSpec(
      {
        number: phone(owned.people),
        from_number: fc.constantFrom(...owned.lines),
        state: fc.constant('start'),
        max_duration_ms: fc.integer({ min: 1, max: 60_000 }),
      },
      ['number', 'from_number'],
    ),
  }),

  'POST /api/upload-media-object': () => ({
    body: recordSpec({ media_url: fixtureMediaUrl }, ['media_url']),
  }),

  'GET /api/v2/groups/:groupID': (owned) => ({ params: { groupID: fc.constantFrom(...owned.groupIds) } }),

  'POST /api/v2/groups/:groupID/name': (owned) => ({
    params: { groupID: fc.constantFrom(...owned.groupIds) },
    body: recordSpec(
      { group_name: fc.oneof(fc.string({ maxLength: 40 }), fc.constant(null)), from_number: fc.constantFrom(...owned.lines, null) },
      ['group_name'],
    ),
  }),

  'POST /api/v2/groups/:groupID/photo': (owned) => ({
    params: { groupID: fc.constantFrom(...owned.groupIds) },
    body: recordSpec(
      { photo_url: fc.constantFrom(null, 'http://127.0.0.1:9/photo.png'), from_number: fc.constantFrom(...owned.lines, null) },
      ['photo_url'],
    ),
  }),

  'POST /sandbox/inbound': (owned) => ({
    body: recordSpec({ number: phone(owned.people), content, media_url: mediaUrl, group_id: fc.constantFrom(...owned.groupIds) }, [
      'number',
      'content',
    ]),
  }),

  'POST /accounts/contacts': (owned) => ({
    body: recordSpec(
      {
        firstName: fc.string({ maxLength: 20 }),
        lastName: fc.string({ maxLength: 20 }),
        number: phone(owned.people),
        companyName: fc.string({ maxLength: 20 }),
      },
      ['firstName', 'lastName', 'number'],
    ),
  }),

  'GET /accounts/contacts': () => ({
    query: recordSpec(
      {
        order_by: fc.constantFrom('last_date', 'firstName', 'lastName', 'created_at'),
        order_direction: fc.constantFrom('asc', 'desc'),
        limit,
        offset,
      },
      [],
    ),
  }),

  'GET /accounts/contacts/:contact_id': (owned) => ({ params: { contact_id: fc.constantFrom(...owned.cids) } }),

  ...sdkContactInputs(),

  'GET /accounts/messages': (owned) => ({
    query: recordSpec(
      {
        cid: fc.constantFrom(...owned.cids),
        number: phone(owned.people),
        group_id: fc.constantFrom(...owned.groupIds),
        status: fc.constantFrom('QUEUED', 'SENT', 'DELIVERED', 'READ', 'ERROR', 'RECEIVED'),
        is_outbound: flag,
        from_date: fc.constantFrom('2026-11-23 00:00:00', '2026-11-23 09:30:00', '1970-01-01 00:00:00', '2999-12-31 23:59:59'),
        limit,
        offset,
      },
      [],
    ),
  }),

  'GET /api/v2/messages': (owned) => ({
    query: recordSpec(
      {
        limit: fc.integer({ min: 1, max: 1_000 }).map(String),
        offset,
        number: phone(owned.people),
        from_number: fc.oneof(phone(owned.people), fc.constantFrom(...owned.lines)),
        to_number: fc.oneof(phone(owned.people), fc.constantFrom(...owned.lines)),
        sendblue_number: fc.constantFrom(...owned.lines),
        worker_id: fc.constantFrom('w_00000000', 'w_1234abcd'),
        group_id: fc.constantFrom(...owned.groupIds),
        is_outbound: fc.constantFrom('true', 'false'),
        message_type: fc.constantFrom('message', 'group'),
        service: fc.constantFrom('iMessage', 'SMS', 'RCS'),
        status: fc.constantFrom('QUEUED', 'SENT', 'DELIVERED', 'READ', 'ERROR', 'RECEIVED', 'PENDING', 'SUCCESS'),
        account_email: fc.constantFrom('someone@example.com', ''),
        created_at_gte: isoDate,
        created_at_lte: isoDate,
        updated_at_gte: isoDate,
        updated_at_lte: isoDate,
        sent_at_gte: isoDate,
        sent_at_lte: isoDate,
        order_by: fc.constantFrom('createdAt', 'updatedAt', 'sentAt', 'created_at', 'updated_at', 'sent_at'),
        order_direction: fc.constantFrom('asc', 'desc'),
      },
      [],
    ),
  }),

  'GET /api/v2/events': () => ({
    query: recordSpec(
      {
        types: fc.subarray([...ACCOUNT_EVENT_TYPES], { minLength: 1 }).map((types) => types.join(',')),
        last_event_id: fc.nat({ max: 1_000_000 }).map(String),
      },
      [],
    ),
  }),

  'GET /api/v2/messages/:id': (owned) => ({ params: { id: fc.constantFrom(...owned.handles) } }),

  'GET /api/evaluate-service': (owned) => ({ query: recordSpec({ number: phone(owned.people) }, ['number']) }),

  'GET /api/status': (owned) => ({
    query: recordSpec({ handle: fc.constantFrom(...owned.handles), history: flag }, ['handle']),
  }),

  ...Object.fromEntries(
    ['POST /accounts/webhooks', 'DELETE /accounts/webhooks'].map((key) => [
      key,
      (owned: Owned) => ({
        body: recordSpec(
          {
            webhooks: fc.array(fc.oneof(fc.constantFrom(...owned.urls), receiverUrl), { minLength: 1, maxLength: 3 }),
            type: fc.constant('receive'),
          },
          ['webhooks', 'type'],
        ),
      }),
    ]),
  ),

  'POST /api/account/webhooks': (owned) => ({
    body: recordSpec(
      {
        webhooks: fc.array(accountWebhookEntry(owned), { minLength: 1, maxLength: 3 }),
        type: fc.constantFrom('receive', 'typing_indicator'),
        globalSecret: webhookSecret,
      },
      ['webhooks'],
    ),
  }),

  'PUT /api/account/webhooks': (owned) => ({
    body: recordSpec(
      {
        webhooks: fc
          .record(
            {
              receive: fc.array(accountWebhookEntry(owned), { maxLength: 3 }),
              outbound: fc.array(fc.oneof(fc.constantFrom(...owned.urls), receiverUrl), { maxLength: 3 }),
              globalSecret: webhookSecret,
            },
            { requiredKeys: [] },
          )
          .map((map) => ({ ...map })), // a plain object, as JSON.parse makes: the fuzzer prints it
      },
      ['webhooks'],
    ),
  }),

  'DELETE /api/account/webhooks': (owned) => ({
    body: recordSpec(
      {
        webhooks: fc.array(fc.oneof(fc.constantFrom(...owned.urls), receiverUrl), { minLength: 1, maxLength: 3 }),
        type: fc.constantFrom('receive', 'outbound'),
      },
      ['webhooks'],
    ),
  }),

  'GET /accounts/webhooks/deliveries': () => ({
    query: recordSpec(
      {
        state: fc.constantFrom('pending', 'delivering', 'delivered', 'failed'),
        limit: fc.integer({ min: 1, max: 200 }).map(String),
        offset,
      },
      [],
    ),
  }),

  'POST /accounts/webhooks/deliveries/:id/replay': (owned) => ({ params: { id: fc.constantFrom(...owned.deliveryIds) } }),

  'POST /webhooks/status': (owned) => ({
    body: recordSpec(
      {
        message_handle: fc.constantFrom(...owned.transportHandles, 'up-not-known-yet'),
        status: fc.constantFrom('QUEUED', 'SENT', 'DELIVERED', 'READ', 'ERROR', 'FAILED'),
        error_code: fc.constantFrom(null, 10001, 10002),
        error_message: fc.constantFrom(null, 'failed', ''),
        was_downgraded: fc.constantFrom(null, true, false),
        from_number: fc.constantFrom(...owned.lines),
        number: phone(owned.people),
        to_number: fc.oneof(phone(owned.people), fc.constant('')),
      },
      ['message_handle', 'status'],
    ),
  }),

  'POST /webhooks/receive': (owned) => ({
    body: recordSpec(
      {
        message_handle: fc.uuid(),
        number: phone(owned.people),
        to_number: fc.constantFrom(...owned.lines),
        content,
        media_url: mediaUrl,
        group_id: fc.constantFrom('', 'upstream-group-1'),
        participants: fc.array(phone(owned.people), { maxLength: 4 }),
        service: fc.constantFrom('iMessage', 'SMS'),
        was_downgraded: fc.constantFrom(null, true, false),
      },
      ['message_handle', 'number', 'to_number', 'content'],
    ),
  }),
};
