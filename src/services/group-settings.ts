import type { AccountRow, GroupRow } from '../db/rows.ts';
import type { ServiceDeps } from './deps.ts';
import { editAtCarrier, findGroup, providerGroupIdOf, requireGroupPlan } from './groups.ts';
import { requireOwnLine } from './lines.ts';
import { fetchMediaFile, type MediaDeps, mediaUrlOf, recordRemoteMedia, storeFetchedMedia } from './media.ts';
import { refuseOverMediaQuota } from './quotas.ts';
import { inTransaction } from './transactions.ts';

const iso = (ms: number) => new Date(ms).toISOString();

export type GroupPhoto = { photo_guid: string; url: string };

/** The photo as the SDK shows it: textrelay's own URL for stored bytes, the provider's for a relayed one. */
async function photoOf(deps: ServiceDeps, group: GroupRow, origin: string): Promise<GroupPhoto | null> {
  const media = group.photoMediaId === null ? undefined : await deps.store.media.findById(group.photoMediaId);
  if (!media) return null;
  return { photo_guid: media.id, url: media.bytes ? mediaUrlOf(origin, media) : (media.remoteUrl ?? media.sourceUrl) };
}

/** `v2.groups.retrieve`: the group, its end users with their contact names, and its newest message. */
export async function retrieveGroup(deps: ServiceDeps, account: AccountRow, groupId: string, origin: string) {
  requireGroupPlan(account);
  const { group, members } = await findGroup(deps, account, groupId);
  const [latest] = await deps.store.messages.list(account.id, { groupId: group.id }, 1, 0);
  const participants = [];
  for (const phone of members) {
    const contact = await deps.store.contacts.findByPhone(account.id, phone);
    const name = contact && contact.deletedAt === null ? `${contact.firstName} ${contact.lastName}`.trim() : '';
    participants.push({
      participant_id: phone,
      type: 'contact' as const,
      phone,
      handle: phone,
      contact_id: contact && contact.deletedAt === null ? contact.id : null,
      name: name === '' ? null : name,
      seat_id: null,
    });
  }
  return {
    status: 'OK' as const,
    data: {
      group_id: group.id,
      group_name: group.displayName,
      group_photo: await photoOf(deps, group, origin),
      participant_numbers: members,
      participants,
      created_at: iso(group.createdAt),
      updated_at: iso(group.updatedAt),
      latest_comm_at: latest ? iso(latest.dateSent) : null,
      latest_message_id: latest?.handle ?? null,
      worker_group_id: null,
    },
  };
}

/**
 * The plan and the group, checked before the body is read: a group of another account answers
 * 404 whatever the body, exactly as a group that does not exist.
 */
export async function requireAccountGroup(deps: ServiceDeps, account: AccountRow, groupId: string): Promise<void> {
  requireGroupPlan(account);
  await findGroup(deps, account, groupId);
}

type SettingInput = { groupId: string; fromNumber?: string | null | undefined };

/** The group and the line a change is made from (the group's own unless the caller names one). */
async function groupAndLine(deps: ServiceDeps, account: AccountRow, input: SettingInput): Promise<{ group: GroupRow; fromNumber: string }> {
  requireGroupPlan(account);
  const { group } = await findGroup(deps, account, input.groupId);
  const fromNumber = input.fromNumber ? await requireOwnLine(deps, account, input.fromNumber) : group.lineNumber;
  return { group, fromNumber };
}

/** Relay mode: the provider's path for this group, under the id it knows the group by. */
const providerPath = async (deps: ServiceDeps, account: AccountRow, group: GroupRow, setting: 'name' | 'photo') =>
  `/api/v2/groups/${encodeURIComponent(await providerGroupIdOf(deps, account, group.id))}/${setting}`;

/** `v2.groups.rename`: null or '' clears the name; later messages and webhooks carry it. */
export async function renameGroup(deps: ServiceDeps, account: AccountRow, input: SettingInput & { groupName: string | null }) {
  const { group, fromNumber } = await groupAndLine(deps, account, input);
  const groupName = input.groupName ?? '';
  if (deps.providers) {
    const answer = await deps.providers.of(account).call({
      method: 'POST',
      path: await providerPath(deps, account, group, 'name'),
      body: { group_name: input.groupName, from_number: fromNumber },
    });
    if (!answer.ok) return answer;
  } else {
    await editAtCarrier(deps, account, group, { kind: 'rename', name: groupName });
  }
  await inTransaction(deps, async (deps) => await deps.store.groups.rename(group.id, groupName, deps.clock.now()));
  return { status: 'OK' as const, data: { from_number: fromNumber, group_id: group.id, group_name: groupName } };
}

const providerPhotoUrl = (body: unknown): string | undefined => {
  const url = (body as { data?: { group_photo?: { url?: unknown } | null } } | null)?.data?.group_photo?.url;
  return typeof url === 'string' && url !== '' ? url : undefined;
};

/** `v2.groups.setPhoto`: fetched and stored like an upload (images only); null clears it. */
export async function setGroupPhoto(
  deps: MediaDeps,
  account: AccountRow,
  input: SettingInput & { photoUrl: string | null; origin: string },
) {
  const { group, fromNumber } = await groupAndLine(deps, account, input);
  const { photoUrl } = input;
  let photoId: string | null = null;
  if (deps.providers) {
    const answer = await deps.providers.of(account).call({
      method: 'POST',
      path: await providerPath(deps, account, group, 'photo'),
      body: { photo_url: photoUrl, from_number: fromNumber },
    });
    if (!answer.ok) return answer;
    if (photoUrl !== null) {
      photoId = (await recordRemoteMedia(deps, account, { sourceUrl: photoUrl, remoteUrl: providerPhotoUrl(answer.body) ?? photoUrl })).id;
    }
  } else {
    const file = photoUrl === null ? null : await fetchMediaFile(deps, photoUrl, { field: 'photo_url', kind: 'image' });
    // Refused before the carrier changes the chat, so a full quota leaves both as they were.
    if (file) await refuseOverMediaQuota(deps, account.id, file.bytes.length);
    await editAtCarrier(deps, account, group, { kind: 'photo', photo: file });
    if (photoUrl !== null && file) photoId = (await storeFetchedMedia(deps, account, photoUrl, file)).id;
  }
  await inTransaction(deps, async (deps) => await deps.store.groups.setPhoto(group.id, photoId, deps.clock.now()));
  const changed = { ...group, photoMediaId: photoId };
  return {
    status: 'OK' as const,
    data: { from_number: fromNumber, group_id: group.id, group_photo: await photoOf(deps, changed, input.origin) },
  };
}
