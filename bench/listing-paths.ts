import type { SeededAccount } from './seed.ts';

/** The v1 listing scenario's paths: 50 rows each, filtered by number, contact, group, status, date and direction in turn. */
export function listingPaths(seeded: SeededAccount): string[] {
  const since = new Date(seeded.lastDateSent - 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
  const paths: string[] = [];
  for (let i = 0; i < 200; i += 1) {
    const filters: Record<string, string>[] = [
      { number: seeded.numbers[(i * 37) % seeded.numbers.length]! },
      { cid: seeded.contactIds[(i * 53) % seeded.contactIds.length]! },
      { group_id: seeded.groupIds[i % seeded.groupIds.length]! },
      { status: ['DELIVERED', 'READ', 'ERROR', 'SENT'][i % 4]! },
      { number: seeded.numbers[(i * 11) % seeded.numbers.length]!, from_date: since },
      { is_outbound: i % 2 === 0 ? 'true' : 'false' },
    ];
    paths.push(`/accounts/messages?${new URLSearchParams({ ...filters[i % filters.length], limit: '50' })}`);
  }
  return paths;
}
